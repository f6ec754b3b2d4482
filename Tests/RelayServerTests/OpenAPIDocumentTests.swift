import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayOutbox
import RelaySQLite
import RelayServer
import RelayStore
import RelayTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// docs/openapi.yaml, as the relay serves it, against the routes the relay really has.
@Suite struct OpenAPIDocumentTests {
    /// Operations the document may describe ahead of their routes while a branch is unmerged. Empty: the
    /// comparison below is exact both ways.
    static let pendingRoutes: Set<Route> = []

    static let httpMethods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The served document as a JSON object.
    static func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: OpenAPIDocument.data) as? [String: Any])
    }

    /// `(method, path)` of every operation in the document's `paths`, methods uppercased.
    static func documentedRoutes() throws -> Set<Route> {
        let paths = try #require(try document()["paths"] as? [String: Any])
        var routes: Set<Route> = []
        for (path, item) in paths {
            let operations = try #require(item as? [String: Any], "paths[\(path)] is not an object")
            for method in operations.keys where httpMethods.contains(method) {
                routes.insert(Route(method: method.uppercased(), pattern: path))
            }
        }
        return routes
    }

    /// The routes of a relay API wired as `Relay` wires it, over a temporary store, on either listener.
    static func registeredRoutes() throws -> [Route] {
        let (api, admin) = try routers()
        var routes = api.routes
        for route in admin.routes where !routes.contains(route) { routes.append(route) }
        return routes
    }

    /// The query parameters each route of either listener takes.
    static func registeredQueryParameters() throws -> [Route: Set<String>] {
        let (api, admin) = try routers()
        return api.queryParameters.merging(admin.queryParameters) { first, _ in first }
    }

    /// The API's and the admin listener's routers, of a relay API wired as `Relay` wires it over a temporary
    /// store.
    static func routers() throws -> (api: Router, admin: Router) {
        let store = try SQLiteStore.temporary()
        let configuration = Configuration()
        let time = SystemTimeSource()
        let metrics = RelayMetrics()
        let api = RelayAPI(
            directory: AppDirectory(apps: []),
            store: store,
            dispatcher: Dispatcher(
                owner: "local",
                appIds: [String](),
                store: store,
                transports: [],
                settings: configuration.delivery,
                time: time,
                metrics: metrics,
                logger: .disabled()
            ),
            metrics: metrics,
            time: time,
            logger: .disabled()
        )
        // The document describes both listeners: the API's and the admin listener's `/metrics`.
        return (api.router(), api.adminRouter { .notStarted })
    }

    @Test func documentIsOpenAPI31() throws {
        let document = try Self.document()
        let version = try #require(document["openapi"] as? String)
        #expect(version.hasPrefix("3.1."))
        #expect((document["info"] as? [String: Any])?["title"] as? String == "PushRelay API")
    }

    @Test func everyRouteIsDocumented() throws {
        let documented = try Self.documentedRoutes()
        let registered = try Self.registeredRoutes()
        let undocumented = registered.filter { !documented.contains($0) }.map(\.description).sorted()
        #expect(undocumented.isEmpty, "routes missing from docs/openapi.yaml: \(undocumented)")
    }

    /// Each operation's query parameters in the document are the ones its route takes (the router refuses
    /// any other with 400 `invalid_query`).
    @Test func everyRouteTakesTheQueryParametersItsOperationDocuments() throws {
        let document = try Self.document()
        let paths = try #require(document["paths"] as? [String: Any])
        let shared = (document["components"] as? [String: Any])?["parameters"] as? [String: Any] ?? [:]
        var taken = try Self.registeredQueryParameters()
        for (path, item) in paths {
            let operations = try #require(item as? [String: Any])
            for (method, operation) in operations where Self.httpMethods.contains(method) {
                let parameters = (operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []
                let query = parameters.compactMap { parameter -> String? in
                    let resolved =
                        (parameter["$ref"] as? String).flatMap { shared[String($0.split(separator: "/").last ?? "")] }
                        as? [String: Any] ?? parameter
                    return resolved["in"] as? String == "query" ? resolved["name"] as? String : nil
                }
                let route = Route(method: method.uppercased(), pattern: path)
                #expect(taken.removeValue(forKey: route) ?? [] == Set(query), "\(route)")
            }
        }
        let undocumented = taken.filter { !$0.value.isEmpty }
        #expect(undocumented.isEmpty, "undocumented routes with query parameters: \(undocumented)")
    }

    @Test func everyDocumentedOperationIsARoute() throws {
        let registered = Set(try Self.registeredRoutes())
        let documented = try Self.documentedRoutes()
        let unrouted = documented.subtracting(registered).subtracting(Self.pendingRoutes).map(\.description).sorted()
        #expect(unrouted.isEmpty, "documented operations with no route: \(unrouted)")
        // A pending route that is already registered means the list above should have been emptied.
        let merged = Self.pendingRoutes.intersection(registered).map(\.description).sorted()
        #expect(merged.isEmpty, "routes still listed as pending but registered; empty pendingRoutes: \(merged)")
    }

    /// `/v1` operations inherit the document's requirement (the API key, or a user credential with its app
    /// header); the operational ones opt out.
    @Test func onlyV1OperationsNeedACredential() throws {
        let document = try Self.document()
        let global = try #require(document["security"] as? [[String: Any]])
        #expect(global.count == 2 && global.allSatisfy { $0["bearerAuth"] != nil })
        #expect(global.map { Set($0.keys) } == [["bearerAuth"], ["bearerAuth", "appHeader"]])
        let paths = try #require(document["paths"] as? [String: Any])
        for (path, item) in paths {
            for (method, operation) in try #require(item as? [String: Any]) where Self.httpMethods.contains(method) {
                let security = (operation as? [String: Any])?["security"] as? [Any]
                if path.hasPrefix("/v1/") {
                    #expect(security == nil, "\(method) \(path) must not override the bearer requirement")
                } else {
                    #expect(security?.isEmpty == true, "\(method) \(path) must declare security: []")
                }
            }
        }
    }

    /// A real relay on a free port answers `GET /openapi.json` with the document, without an API key.
    @Test func relayServesTheDocument() async throws {
        var configuration = Configuration()
        configuration.http.port = 0
        configuration.apps = [
            Configuration.App(id: "openapi-test", topic: "com.example.chat", apiKeySHA256: [APIKey.hash("k")])
        ]
        let store = TestRelay.StoreChoice { _, _ in try SQLiteStore.temporary() }
        try await TestRelay.with(configuration, store: store) { relay in
            let answer = try await relay.call("GET", "/openapi.json")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "application/json")
            #expect(answer.body == OpenAPIDocument.data)
            let served = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            #expect((served["paths"] as? [String: Any])?["/openapi.json"] != nil)
        }
    }
}
