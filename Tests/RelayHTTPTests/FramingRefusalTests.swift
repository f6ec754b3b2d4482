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
        onResponse: (@Sendable (AccessLogEntry) -> Void)? = nil,
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
                logger: .disabled(),
                onResponse: onResponse
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
    @Test(
        arguments: [
            // White space before a colon: `Content-Length : 5` is a field some proxies read and libmicrohttpd
            // does not, so "hello" would be read as the next request.
            ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length : 5\r\n\r\nhello", 400, "malformed_header"),
            ("GET /hello HTTP/1.1\r\nHost : t\r\n\r\n", 400, "malformed_header"),
            ("GET /hello HTTP/1.1\r\nHost: t\r\nX-Tab\t: 1\r\n\r\n", 400, "malformed_header"),
            ("GET /hello HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", 400, "missing_host"),
            ("GET /hello HTTP/1.1\r\nHost: t\r\nHost: u\r\n\r\n", 400, "conflicting_headers"),
            (
                "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\n"
                    + "Content-Length: 2\r\n\r\n{}", 400, "conflicting_headers"
            ),
            ("BREW /hello HTTP/1.1\r\nHost: t\r\n\r\n", 501, "method_not_implemented"),
            ("PATCH /hello HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello", 501, "method_not_implemented"),
            ("GET /he%zz HTTP/1.1\r\nHost: t\r\n\r\n", 400, "invalid_target"),
            // A NUL in the target: libmicrohttpd hands the target over as a C string, which ends there, so
            // each of these would be served as `/hello`.
            ("GET /hello\u{0}/../admin HTTP/1.1\r\nHost: t\r\n\r\n", 400, "invalid_target"),
            ("GET /hello\u{0} HTTP/1.1\r\nHost: t\r\n\r\n", 400, "invalid_target"),
            ("GET /hello?\u{0}a=1 HTTP/1.1\r\nHost: t\r\n\r\n", 400, "invalid_target"),
            ("GET /hello\u{0}HTTP/1.1 HTTP/1.1\r\nHost: t\r\n\r\n", 400, "invalid_target"),
            // A NUL in the method would serve it as what comes before it.
            ("POST\u{0}X /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}", 400, "bad_request"),
            ("GET\u{0}POST /hello HTTP/1.1\r\nHost: t\r\n\r\n", 400, "bad_request"),
            ("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "unsupported_transfer_encoding"),
            ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n", 413, "payload_too_large"),
        ] + Self.malformedFields
    )
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

    /// Header bytes libmicrohttpd 0.9.75 lets through and a proxy in front may frame otherwise: obs-fold,
    /// control characters in a value, a bare LF, a Content-Length that is not digits, a Transfer-Encoding
    /// other than `chunked` alone. Each is followed by a body whose bytes would form a request if the
    /// length were read otherwise. (A Content-Length that is not digits libmicrohttpd refuses by itself.)
    static let malformedFields: [(String, Int, String)] = [
        // obs-fold: libmicrohttpd appends the folded line to the field's name, and the length is lost.
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n x\r\n\r\n{x}", 400, "malformed_header"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\t3\r\n\r\n{x}", 400, "malformed_header"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n 34\r\n\r\n", 400, "malformed_header"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 34\r\n x\r\n\r\n", 400, "malformed_header"),
        ("GET /hello HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n  folded\r\n\r\n", 400, "malformed_header"),
        // A bare CR, a NUL and other control characters inside a value.
        ("GET /hello HTTP/1.1\r\nHost: x\rContent-Length: 34\r\n\r\n", 400, "malformed_header"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 0\u{0}34\r\n\r\n", 400, "malformed_header"),
        (
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\u{0}, gzip\r\n\r\n0\r\n\r\n", 400,
            "malformed_header"
        ),
        ("GET /hello HTTP/1.1\r\nHost: t\r\nX-A: a\u{1}b\r\n\r\n", 400, "malformed_header"),
        ("GET /hello HTTP/1.1\r\nHost: t\r\nX-A: a\u{7f}b\r\n\r\n", 400, "malformed_header"),
        // A bare LF ending a header line that another follows, or the header section.
        ("GET /hello HTTP/1.1\r\nHost: t\nX-A: 1\r\n\r\n", 400, "malformed_header"),
        ("GET /hello HTTP/1.1\r\nHost: t\r\n\n", 400, "malformed_header"),
        // A line without a field name after the first field ends libmicrohttpd's header section: a proxy
        // reads the fields after it, libmicrohttpd reads them (and the proxy's empty line) as the body.
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n: x\r\n\r\nhello", 400, "malformed_header"),
        ("GET /hello HTTP/1.1\r\nHost: t\r\n:  \r\nX-A: 1\r\n\r\n", 400, "malformed_header"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n:\r\n\r\nhello", 400, "malformed_header"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 9\r\n:\r\nX-A: 1\r\n\r\nhello", 400, "malformed_header"),
        // Without a body, what follows such a line would be read as the next request.
        ("GET /hello HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n:\r\n", 400, "malformed_header"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n:\r\n", 400, "malformed_header"),
        // Ended by a bare LF, a `:` line leaves what a CRLF empty line leaves: the fields after it start the body.
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 15\r\n:\nX-A: 1\r\n\r\nhello", 400, "malformed_header"),
        // Transfer-Encoding other than one `chunked` (libmicrohttpd reads `chunked ` as no coding at all).
        (
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked \r\n\r\n0\r\n\r\n", 501,
            "unsupported_transfer_encoding"
        ),
        (
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked,\r\n\r\n0\r\n\r\n", 501,
            "unsupported_transfer_encoding"
        ),
        (
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\n\r\n", 501, "unsupported_transfer_encoding"
        ),
    ]

    /// Lawful fields around the checks are served, and the connection kept: a repeated equal length, HTAB inside a value, `Chunked` in another case, trailing white space, an empty line before the request line (RFC 9112 §2.2).
    @Test(arguments: [
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
        "POST /echo HTTP/1.1\r\nHost: t\r\nX-A: a\tb \r\nContent-Length: 3\r\n\r\nabc",
        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding:  Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: t\r\nX-Empty:\r\nContent-Length: 3\r\n\r\nabc",
        "\r\nPOST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc",
        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3;e=\(String(repeating: "e", count: 5000))\r\n"
            + "abc\r\n0\r\n\r\n",
    ])
    func lawfulFieldsAreServed(_ request: String) async throws {
        try await Self.withCountingServer { server, hellos in
            let connection = try RawConnection(port: server.port, receiveTimeout: 5)
            await connection.write(request + Self.follower)
            let raw = await connection.read(until: "hello")
            #expect(statusCode(raw) == 200, "\(raw)")
            #expect(raw.contains("abc"), "\(raw)")
            #expect(raw.hasSuffix("hello"), "\(raw)")
            #expect(hellos.value == 1)
        }
    }

    /// A body sent after its headers, in a write of its own (as after `Expect: 100-continue`), starts where
    /// the header section ended, as one sent with them does.
    @Test(arguments: [
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\n", "abc"),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n", "3;x=y\r\nabc\r\n0\r\n\r\n"),
    ])
    func aBodyInALaterWriteIsServed(_ head: String, _ body: String) async throws {
        try await Self.withCountingServer { server, _ in
            let connection = try RawConnection(port: server.port, receiveTimeout: 5)
            await connection.write(head)
            try await Task.sleep(for: .milliseconds(200))
            await connection.write(body)
            let raw = await connection.read(until: "abc")
            #expect(statusCode(raw) == 200, "\(raw)")
            #expect(raw.hasSuffix("abc"), "\(raw)")
        }
    }

    /// What libmicrohttpd refuses by itself (a line without a colon, a target or headers past
    /// ``HTTPServerConfiguration/maxHeaderBytes``, an HTTP version it does not speak) closes the connection
    /// as well, and is reported to `onResponse` when its request line was read.
    @Test(arguments: [
        ("GET /hello HTTP/1.1\r\nHost: t\r\nNo colon here\r\n\r\n", [400]),
        ("GET /\(String(repeating: "a", count: 10_000)) HTTP/1.1\r\nHost: t\r\n\r\n", [414, 431]),
        ("GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "b", count: 10_000))\r\n\r\n", [413, 431]),
        ("GET /hello HTTP/2.5\r\nHost: t\r\n\r\n", [505]),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", [400]),
        (
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5;\(String(repeating: "e", count: 20_000))"
                + "\r\nabcde\r\n0\r\n\r\n",
            [500]
        ),
    ])
    func whatLibmicrohttpdRefusesClosesTheConnection(_ request: String, _ statuses: [Int]) async throws {
        let entries = Mutex<[AccessLogEntry]>([])
        try await Self.withCountingServer(onResponse: { entry in entries.withLock { $0.append(entry) } }) {
            server,
            hellos in
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
            // Reported as the relay's own answers are, without a route (and, before the headers were read, a
            // method), when its request line was read whole; libmicrohttpd hands over no request for a 414 or a
            // 505, and its 500 would read as the relay's own failure.
            let reported = entries.withLock { $0.filter { $0.status == status } }
            #expect(reported.count == ([414, 505, 500].contains(status) ? 0 : 1), "\(reported)")
            let method = request.hasPrefix("POST") && status == 400 ? "POST" : ""
            #expect(reported.allSatisfy { $0.route == nil && $0.method == method && $0.clientAddress == "127.0.0.1" })
        }
    }

    /// A Content-Length that is not digits, or lists values, libmicrohttpd answers itself with an HTML 400 (its
    /// status line and headers written twice, in 0.9.75) and closes: the body is never read as a request.
    @Test(arguments: ["3x", "+3", "3 3", "", "3,", "3, 4", " \t3 "])
    func aContentLengthNotDigitsIsRefused(_ length: String) async throws {
        try await Self.withCountingServer { server, hellos in
            let connection = try RawConnection(port: server.port, receiveTimeout: 5)
            let request = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length:\(length)\r\n\r\n{x}"
            await connection.write(request + Self.follower)
            let raw = await connection.read()
            #expect(statusCode(raw) == 400, "\(raw)")
            #expect(!raw.contains("200 OK"), "\(raw)")
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
