import Foundation
import RelayHTTP
import Synchronization
import Testing

/// What a route's header check found before the body reaches its handler with the request, over real
/// sockets: the router does not resolve the route again, and the handler does not redo the check.
@Suite struct HeaderNoteTests {
    /// How many times the routed check ran.
    final class Calls: Sendable {
        let count = Atomic<Int>(0)
    }

    /// A router whose routed check notes the caller it read, and counts its calls; `/v1/echo-note/{name}`
    /// answers with the note it was handed and its path parameter.
    static func router(checks: Calls) -> Router {
        var router = Router()
        router.post("/v1/echo-note/{name}") { request, parameters in
            .text("\(request.headerNote as? String ?? "none") \(parameters["name"] ?? "-")")
        }
        router.checkRoutedHeaders { pattern, headers, client in
            checks.count.add(1, ordering: .relaxed)
            return .proceed(maxBodyBytes: nil, note: "\(pattern) for \(headers["x-caller"] ?? "nobody") at \(client)")
        }
        return router
    }

    @Test func theHandlerGetsTheNoteOfTheHeaderCheckAndItsRoute() async throws {
        let checks = Calls()
        let router = Self.router(checks: checks)
        try await withServer(headerCheck: router.headerCheck, handler: router.handler) { server in
            let response = try await send(
                "POST",
                server.port,
                "/v1/echo-note/b%2Fc",
                headers: ["X-Caller": "alice"],
                body: Data("x".utf8)
            )
            #expect(response.status == 200)
            #expect(response.text == "/v1/echo-note/{name} for alice at 127.0.0.1 b/c")
        }
        #expect(checks.count.load(ordering: .relaxed) == 1)
    }

    /// A request built elsewhere (no server, no header check) is routed from its own target and carries no note.
    @Test func aRequestBuiltElsewhereIsRoutedWithoutANote() async throws {
        let checks = Calls()
        let router = Self.router(checks: checks)
        let request = try HTTPRequest(method: "POST", target: "/v1/echo-note/n", body: Data("x".utf8))
        let response = await router.respond(to: request)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "none n")
        #expect(checks.count.load(ordering: .relaxed) == 0)
    }
}
