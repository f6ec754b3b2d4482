import Foundation
import RelayCore
import RelayHTTP
import Testing

@Suite struct RouterTests {
    struct Secret: Error, CustomStringConvertible {
        var description: String { "database password is hunter2" }
    }

    static func router(logger: Logger = .disabled()) -> Router {
        var router = Router(logger: logger)
        router.put("/v1/devices/{token}") { _, parameters in .text("put \(try parameters.require("token"))") }
        router.delete("/v1/devices/{token}") { _, parameters in .text("delete \(parameters["token"] ?? "")") }
        router.get("/v1/devices/count") { _, _ in .text("count") }
        router.get("/v1/rooms/{room}/members/{user}") { _, parameters in
            .text("\(parameters["room"] ?? "")|\(parameters["user"] ?? "")")
        }
        router.post("/v1/fail") { _, _ in throw Secret() }
        router.post("/v1/conflict") { _, _ in throw HTTPError.conflict(code: "already_there", message: "Exists") }
        router.get("/") { _, _ in .text("root") }
        return router
    }

    static func request(_ method: String, _ target: String) throws -> HTTPRequest {
        try HTTPRequest(method: method, target: target)
    }

    static func errorCode(_ response: HTTPResponse) -> String? {
        let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]]
        return object?["error"]?["code"]
    }

    @Test func routesToTheHandlerWithPercentDecodedParameters() async throws {
        let response = await Self.router().respond(to: try Self.request("PUT", "/v1/devices/ab%2Fc%20d"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "put ab/c d")
        #expect(response.route == "/v1/devices/{token}")
        let two = await Self.router().respond(to: try Self.request("GET", "/v1/rooms/r%C3%A9/members/u%3F1"))
        #expect(String(decoding: two.body, as: UTF8.self) == "ré|u?1")
    }

    /// A query parameter the route does not take, or a body on a method that takes none, is refused before
    /// the handler runs; what the route takes reaches it.
    @Test func whatARouteDoesNotTakeIsRefused() async throws {
        var router = Router()
        router.get("/v1/list", query: ["limit"]) { request, _ in .text("limit \(request.query["limit"] ?? "-")") }
        router.delete("/v1/item") { _, _ in .text("deleted") }
        router.post("/v1/item") { request, _ in .text("posted \(request.body.count)") }
        for target in ["/v1/list?limit=5", "/v1/list?limit=5&", "/v1/list?&limit=5&&"] {
            let listed = await router.respond(to: try Self.request("GET", target))
            #expect(String(decoding: listed.body, as: UTF8.self) == "limit 5", "\(target)")
        }
        for target in ["/v1/list?limt=5", "/v1/list?limit=5&offset=1", "/v1/list?x", "/v1/list?=5"] {
            let refused = await router.respond(to: try Self.request("GET", target))
            #expect(refused.status == 400 && Self.errorCode(refused) == "invalid_query", "\(target)")
            #expect(refused.route == "/v1/list")
        }
        let noQuery = await router.respond(to: try Self.request("DELETE", "/v1/item?force=1"))
        #expect(noQuery.status == 400 && Self.errorCode(noQuery) == "invalid_query")
        let body = Data(#"{"x":1}"#.utf8)
        for method in ["DELETE", "GET"] {
            let target = method == "GET" ? "/v1/list" : "/v1/item"
            let refused = await router.respond(to: try HTTPRequest(method: method, target: target, body: body))
            #expect(refused.status == 400 && Self.errorCode(refused) == "bad_request", "\(method)")
        }
        let posted = await router.respond(to: try HTTPRequest(method: "POST", target: "/v1/item", body: body))
        #expect(String(decoding: posted.body, as: UTF8.self) == "posted 7")
    }

    @Test func aLiteralSegmentBeatsAParameter() async throws {
        let response = await Self.router().respond(to: try Self.request("GET", "/v1/devices/count"))
        #expect(String(decoding: response.body, as: UTF8.self) == "count")
        #expect(response.route == "/v1/devices/count")
        // The literal route has no DELETE: the parameter route takes it.
        let delete = await Self.router().respond(to: try Self.request("DELETE", "/v1/devices/count"))
        #expect(String(decoding: delete.body, as: UTF8.self) == "delete count")
    }

    @Test(arguments: [
        "/nope", "/v1/devices", "/v1/devices/", "/v1/devices//", "/v1/rooms//members/u", "/v1//devices/x",
    ])
    func anUnknownPathOrEmptySegmentIs404(_ target: String) async throws {
        let response = await Self.router().respond(to: try Self.request("GET", target))
        #expect(response.status == 404)
        #expect(Self.errorCode(response) == "not_found")
        #expect(response.header("content-type") == "application/json")
        #expect(response.route == nil)
    }

    /// What a request line alone reaches, as ``Router/respond(to:)`` labels it: for the answers the server
    /// gives before the router sees a request.
    @Test func theRouteOfARequestLineIsTheOneRespondLabels() async throws {
        let router = Self.router()
        for (method, target) in [
            ("PUT", "/v1/devices/abc?x=1"), ("GET", "/v1/devices/count"), ("PATCH", "/v1/devices/abc"),
            ("HEAD", "/v1/rooms/r/members/u"), ("GET", "/nope"), ("GET", "/v1/devices/a%2Fb"),
        ] {
            let responded = await router.respond(to: try Self.request(method, target)).route
            #expect(router.routeOf(method, target) == responded, "\(method) \(target)")
        }
        #expect(router.routeOf("PATCH", "/v1/devices/abc") == "/v1/devices/{token}")
        #expect(router.routeOf("GET", "/nope") == nil)
        #expect(router.routeOf("POST", "/v1/devices/%zz") == nil)
        #expect(router.routeOf("POST", "/v1/fail?a=1&a=2") == nil)
    }

    @Test func aKnownPathWithAnotherMethodIs405WithAllow() async throws {
        let response = await Self.router().respond(to: try Self.request("POST", "/v1/devices/abc"))
        #expect(response.status == 405)
        #expect(Self.errorCode(response) == "method_not_allowed")
        #expect(response.header("Allow") == "PUT, DELETE")
    }

    @Test func headFallsBackToGet() async throws {
        let response = await Self.router().respond(to: try Self.request("HEAD", "/"))
        #expect(response.status == 200)
        #expect(response.route == "/")
    }

    @Test func aThrownHTTPErrorIsRendered() async throws {
        let response = await Self.router().respond(to: try Self.request("POST", "/v1/conflict"))
        #expect(response.status == 409)
        #expect(
            String(decoding: response.body, as: UTF8.self) == #"{"error":{"code":"already_there","message":"Exists"}}"#
        )
    }

    @Test func anyOtherErrorIsAGeneric500AndIsLoggedWithTheRequestID() async throws {
        let logs = MemoryLogHandler()
        let router = Self.router(logger: Logger(label: "test", level: .debug, handler: logs))
        let request = try HTTPRequest(method: "POST", target: "/v1/fail", id: "req-1")
        let response = await router.respond(to: request)
        #expect(response.status == 500)
        #expect(Self.errorCode(response) == "internal_error")
        #expect(!String(decoding: response.body, as: UTF8.self).contains("hunter2"))
        let entry = try #require(logs.entries.first)
        #expect(entry.level == .error)
        #expect(entry.metadata["request.id"] == "req-1")
        #expect(entry.metadata["http.route"] == "/v1/fail")
        #expect(entry.metadata["error"]?.contains("hunter2") == true)
    }

    /// An error the router's `errorAnswer` knows (a state the layer below logs on its own) is answered as it
    /// says and its cause logged at warning; one it does not know is still a 500 logged at error.
    @Test func aKnownFailureIsAnsweredAsMappedAndLoggedAtWarning() async throws {
        struct Outage: Error {}
        let logs = MemoryLogHandler()
        var router = Router(logger: Logger(label: "test", level: .debug, handler: logs)) { error in
            error is Outage ? HTTPError(status: 503, code: "storage_unavailable", message: "Later") : nil
        }
        router.post("/v1/away") { _, _ in throw Outage() }
        router.post("/v1/fail") { _, _ in throw Secret() }
        let away = await router.respond(to: try HTTPRequest(method: "POST", target: "/v1/away", id: "a"))
        #expect(away.status == 503 && Self.errorCode(away) == "storage_unavailable")
        let failed = await router.respond(to: try HTTPRequest(method: "POST", target: "/v1/fail", id: "f"))
        #expect(failed.status == 500)
        let levels = logs.entries.filter { $0.message == "handler failed" }
            .map { ($0.metadata["request.id"], $0.level) }
        #expect(levels.count == 2)
        #expect(levels.first { $0.0 == "a" }?.1 == .warning)
        #expect(levels.first { $0.0 == "f" }?.1 == .error)
    }

    /// With a budget, a failure every request meets alike (a storage outage) writes a bounded number of lines:
    /// at most the budget's limit in each second the requests took, and the lines left out are counted in a
    /// `handler failures not logged` line before the next one.
    @Test func failuresAreLoggedWithinABudget() async throws {
        let logs = MemoryLogHandler()
        let budget = LogBudget(limit: 20, interval: .seconds(1), lines: "handler failures")
        let logger = Logger(label: "test", level: .debug, handler: logs)
        var router = Router(logger: logger, failureLines: budget)
        router.post("/v1/fail") { _, _ in throw Secret() }
        let requests = 200
        let started = ContinuousClock.now
        for index in 0..<requests {
            let response = await router.respond(
                to: try HTTPRequest(method: "POST", target: "/v1/fail", id: "r-\(index)")
            )
            #expect(response.status == 500)
        }
        let seconds = Int((ContinuousClock.now - started).components.seconds) + 1
        let lines = logs.entries.filter { $0.message == "handler failed" }
        #expect(lines.count <= budget.limit * seconds, "\(lines.count) lines in \(seconds) s")
        // A second later the next line is written after the count, and every request is a line or counted.
        try await Task.sleep(for: .seconds(1))
        _ = await router.respond(to: try HTTPRequest(method: "POST", target: "/v1/fail", id: "after"))
        budget.flush(to: logger)
        let failed = logs.entries.filter { $0.message == "handler failed" }
        #expect(failed.last?.metadata["request.id"] == "after")
        let leftOut = logs.entries.filter { $0.message == "handler failures not logged" }
            .map { Int($0.metadata["count"] ?? "") ?? 0 }.reduce(0, +)
        #expect(leftOut + failed.count - 1 == requests, "\(leftOut) left out, \(failed.count) lines")
    }

    @Test func listsRegisteredRoutesInOrder() {
        #expect(
            Self.router().routes.map(\.description) == [
                "PUT /v1/devices/{token}", "DELETE /v1/devices/{token}", "GET /v1/devices/count",
                "GET /v1/rooms/{room}/members/{user}", "POST /v1/fail", "POST /v1/conflict", "GET /",
            ]
        )
    }

    @Test func parsesTheTarget() throws {
        let request = try HTTPRequest(
            method: "GET",
            target: "/a%2Fb/c?x=1&y=a%20b&flag",
            headers: ["X-Request-Id": "abc-123"]
        )
        #expect(request.path == "/a/b/c")
        #expect(request.pathSegments == ["a/b", "c"])
        #expect(request.query == ["x": "1", "y": "a b", "flag": ""])
        // A name twice, however it is spelt, is refused: which value counts would depend on the reader.
        let twice = #expect(throws: HTTPError.self) {
            try HTTPRequest(method: "GET", target: "/a?x=1&y=2&%78=2")
        }
        #expect(twice?.code == "invalid_query")
        #expect(request.id == "abc-123")
        #expect(request.headers["x-request-id"] == "abc-123")
        #expect(try HTTPRequest(method: "GET", target: "//x").pathSegments == ["", "x"])
        #expect(try HTTPRequest(method: "GET", target: "/").pathSegments == [])
        // Every character is kept: a leading U+FEFF (which Foundation's decoding drops) makes another id.
        let marked = try HTTPRequest(method: "GET", target: "/v1/users/%EF%BB%BFalice/%EF%BB%BF")
        #expect(
            marked.pathSegments.map { Array($0.utf8) }
                == ["v1", "users", "\u{FEFF}alice", "\u{FEFF}"].map { Array($0.utf8) }
        )
        #expect(throws: HTTPError.self) { try HTTPRequest(method: "GET", target: "/a%FF") }
        // A query is decoded as the path is: bytes that are not UTF-8 are refused, not read as no value.
        for target in ["/a?messageId=m1%FF", "/a?m%C3=1"] {
            let notText = #expect(throws: HTTPError.self) { try HTTPRequest(method: "GET", target: target) }
            #expect(notText?.code == "invalid_query" && notText?.message == "The query is not valid UTF-8")
        }
        let markedQuery = try HTTPRequest(method: "GET", target: "/a?id=%EF%BB%BFm1&plus=a+b")
        #expect(markedQuery.query["id"].map { Array($0.utf8) } == Array("\u{FEFF}m1".utf8))
        #expect(markedQuery.query["plus"] == "a+b")
        let insane = try HTTPRequest(method: "GET", target: "/", headers: ["X-Request-Id": "a b\"<script>"])
        #expect(insane.id.count == 32 && insane.id != "a b\"<script>")
    }
}
