import Foundation
import RelayCore
import RelayHTTP
import Synchronization
import Testing

/// A request refused for its framing or headers closes its connection: what follows it on the connection is
/// never run as another request (request desync behind a proxy that read the bytes otherwise).
@Suite struct FramingRefusalTests {
    /// A server answering `GET /hello` (counted) and `POST /echo`, with the methods its router serves.
    static func withCountingServer(
        configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        _ body: (HTTPServer, Counter) async throws -> Void
    ) async throws {
        let hellos = Counter()
        do {
            var router = Router()
            router.get("/hello") { _, _ in
                hellos.add()
                return .text("hello")
            }
            router.post("/echo") { request, _ in HTTPResponse(status: 200, body: request.body) }
            var configuration = HTTPServerConfiguration()
            configuration.port = 0
            configuration.maxBodyBytes = 1000
            configuration.maxHeaderBytes = 8192
            configure(&configuration)
            let server = HTTPServer(
                configuration: configuration,
                methods: router.methods,
                handler: router.handler,
                logger: .disabled()
            )
            try server.start()
            do {
                try await body(server, hellos)
            } catch {
                await server.shutdown()
                throw error
            }
            await server.shutdown()
        }
    }

    /// How many times a handler ran.
    final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        func add() { count.wrappingAdd(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    static let follower = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"

    /// Each request is refused, the request pipelined behind it is not run, and the server closes the
    /// connection (the answer says `Connection: close` where the relay writes it).
    @Test(arguments: [
        // White space before a colon: `Content-Length : 5` is a field some proxies read and libmicrohttpd
        // does not, so "hello" would be read as the next request.
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length : 5\r\n\r\nhello", 400, "malformed_header"),
        ("GET /hello HTTP/1.1\r\nHost : t\r\n\r\n", 400, "malformed_header"),
        ("GET /hello HTTP/1.1\r\nHost: t\r\nX-Tab\t: 1\r\n\r\n", 400, "malformed_header"),
        ("GET /hello HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", 400, "missing_host"),
        ("GET /hello HTTP/1.1\r\nHost: t\r\nHost: u\r\n\r\n", 400, "conflicting_headers"),
        ("BREW /hello HTTP/1.1\r\nHost: t\r\n\r\n", 501, "method_not_implemented"),
        ("PATCH /hello HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello", 501, "method_not_implemented"),
        ("GET /he%zz HTTP/1.1\r\nHost: t\r\n\r\n", 400, "invalid_target"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "unsupported_transfer_encoding"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n", 413, "payload_too_large"),
    ])
    func aRefusedRequestClosesTheConnection(_ request: String, _ status: Int, _ code: String) async throws {
        try await Self.withCountingServer { server, hellos in
            let connection = try RawConnection(port: server.port, receiveTimeout: 5)
            await connection.write(request + Self.follower)
            let raw = await connection.read()
            #expect(statusCode(raw) == status, "\(raw)")
            #expect(raw.contains("\"code\":\"\(code)\""), "\(raw)")
            #expect(raw.lowercased().contains("connection: close"), "\(raw)")
            #expect(
                raw.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/") }.count == 1,
                "one answer: \(raw)"
            )
            #expect(await connection.readsEndOfStream())
            #expect(hellos.value == 0)
            try await Self.expectServed(server, hellos)
        }
    }

    /// What libmicrohttpd refuses by itself (a line without a colon, a target or headers past
    /// ``HTTPServerConfiguration/maxHeaderBytes``, an HTTP version it does not speak) closes the connection
    /// as well.
    @Test(arguments: [
        ("GET /hello HTTP/1.1\r\nHost: t\r\nNo colon here\r\n\r\n", [400]),
        ("GET /\(String(repeating: "a", count: 10_000)) HTTP/1.1\r\nHost: t\r\n\r\n", [414, 431]),
        ("GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "b", count: 10_000))\r\n\r\n", [413, 431]),
        ("GET /hello HTTP/2.5\r\nHost: t\r\n\r\n", [505]),
    ])
    func whatLibmicrohttpdRefusesClosesTheConnection(_ request: String, _ statuses: [Int]) async throws {
        try await Self.withCountingServer { server, hellos in
            let connection = try RawConnection(port: server.port, receiveTimeout: 5)
            await connection.write(request + Self.follower)
            let raw = await connection.read()
            let status = try #require(statusCode(raw), "\(raw)")
            #expect(statuses.contains(status), "\(raw)")
            #expect(
                raw.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/") }.count == 1,
                "one answer: \(raw)"
            )
            #expect(await connection.readsEndOfStream())
            #expect(hellos.value == 0)
            try await Self.expectServed(server, hellos)
        }
    }

    /// A 400 about a valid request's body (the handler's) keeps the connection: the next request is served.
    @Test func aHandlersRefusalKeepsTheConnection() async throws {
        try await Self.withCountingServer { server, hellos in
            let connection = try RawConnection(port: server.port, receiveTimeout: 5)
            await connection.write("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n" + Self.follower)
            let raw = await connection.read(until: "hello")
            #expect(raw.hasPrefix("HTTP/1.1 404"), "\(raw)")
            #expect(raw.hasSuffix("hello"), "\(raw)")
            #expect(hellos.value == 1)
        }
    }

    /// A fresh connection is still served.
    static func expectServed(_ server: HTTPServer, _ hellos: Counter) async throws {
        let before = hellos.value
        let connection = try RawConnection(port: server.port)
        await connection.write("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let raw = await connection.read()
        #expect(statusCode(raw) == 200 && raw.hasSuffix("hello"), "\(raw)")
        #expect(hellos.value == before + 1)
    }
}
