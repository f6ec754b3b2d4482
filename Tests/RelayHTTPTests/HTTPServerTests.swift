import Foundation
import RelayCore
import RelayHTTP
import Synchronization
import Testing

@Suite struct HTTPServerTests {
    static func echoRouter() -> Router {
        var router = Router()
        router.get("/hello") { request, _ in .text("hello \(request.query["name"] ?? "")") }
        return router
    }

    @Test func answersARoutedRequestWithARequestID() async throws {
        try await withServer(handler: Self.echoRouter().handler) { server in
            #expect(server.port > 0)
            let response = try await send("GET", server.port, "/hello?name=a%20b")
            #expect(response.status == 200)
            #expect(response.text == "hello a b")
            #expect(response.header("X-Request-Id")?.count == 32)
        }
    }
}
