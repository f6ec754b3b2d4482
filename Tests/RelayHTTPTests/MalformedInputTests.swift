import Foundation
import RelayCore
import RelayHTTP
import Testing

/// Raw bytes on real sockets: every bad input is answered or cut off, and the server keeps serving.
@Suite struct MalformedInputTests {
    static func router() -> Router {
        var router = Router()
        router.get("/hello") { _, _ in .text("hello") }
        router.post("/echo") { request, _ in HTTPResponse(status: 200, body: request.body) }
        return router
    }

    /// A normal request on a fresh connection still gets its answer.
    static func expectHealthy(_ port: Int) async throws {
        let connection = try RawConnection(port: port)
        await connection.write("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let raw = await connection.read()
        #expect(statusCode(raw) == 200)
        #expect(raw.hasSuffix("hello"))
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET\r\n\r\n",
        "GET /hello HTTP/9.9\r\nHost: t\r\n\r\n",
        "GET /hello HTTP/1.1\r\nHost: t\r\nBad Header Without Colon\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
        "\u{01}\u{02}\u{03}\r\n\r\n",
    ])
    func aBrokenRequestIsRefusedAndTheServerKeepsServing(_ request: String) async throws {
        try await withServer(handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write(request)
            let raw = await connection.read()
            // libmicrohttpd answers 4xx/5xx itself or just closes; it never reaches a handler.
            if let status = statusCode(raw) { #expect(status >= 400) }
            #expect(!raw.contains("hello"))
            try await Self.expectHealthy(server.port)
        }
    }

    @Test func aHugeHeaderIsRefusedByLibmicrohttpd() async throws {
        try await withServer(configure: { $0.maxHeaderBytes = 8192 }, handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            let huge = String(repeating: "x", count: 64 * 1024)
            await connection.write("GET /hello HTTP/1.1\r\nHost: t\r\nX-Huge: \(huge)\r\n\r\n")
            let raw = await connection.read()
            if let status = statusCode(raw) { #expect([413, 414, 431].contains(status)) }
            #expect(!raw.contains("hello"))
            try await Self.expectHealthy(server.port)
        }
    }

    /// A target that is no usable path is 400 `invalid_target`; a query parameter given twice is 400
    /// `invalid_query`, whichever value a reader would take. The server serves on.
    @Test(arguments: [
        ("GET /hello%FF", "invalid_target"), ("OPTIONS *", "invalid_target"), ("GET /hello%zz", "invalid_target"),
        ("GET /hello%4", "invalid_target"), ("GET /hel lo", "invalid_target"), ("GET /he\tllo", "invalid_target"),
        ("GET /hello?name=a&name=b", "invalid_query"), ("GET /hello?name&name=b", "invalid_query"),
        ("GET /hello?name=a&x=1&name=a", "invalid_query"),
    ])
    func anUnusableTargetIs400(_ requestLine: String, code: String) async throws {
        try await withServer(handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write("\(requestLine) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let raw = await connection.read()
            #expect(statusCode(raw) == 400)
            #expect(raw.contains("\"\(code)\""), "\(raw)")
            try await Self.expectHealthy(server.port)
        }
    }

    /// A target with a byte past ASCII, raw UTF-8 or not, is 400 `invalid_target`: never read as the path of
    /// its replacement character (`%EF%BF%BD`), which several raw bytes would otherwise all name.
    @Test(arguments: [[0xFF], [0xFE], [0xC3, 0xA9], [0xEF, 0xBF, 0xBD]] as [[UInt8]])
    func aTargetWithBytesPastASCIIIs400(_ bytes: [UInt8]) async throws {
        try await withServer(handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            let request =
                Data("GET /hello".utf8) + Data(bytes) + Data(" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".utf8)
            await connection.write(request)
            let raw = await connection.read()
            #expect(statusCode(raw) == 400, "\(raw)")
            #expect(raw.contains("\"invalid_target\""), "\(raw)")
            try await Self.expectHealthy(server.port)
        }
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400, once, in JSON; HTTP/1.0 needs none.
    @Test func anHTTP11RequestWithoutHostIs400() async throws {
        try await withServer(handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write("GET /hello HTTP/1.1\r\nConnection: close\r\n\r\n")
            let raw = await connection.read()
            #expect(statusCode(raw) == 400)
            #expect(raw.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/") }.count == 1, "\(raw)")
            #expect(
                raw.hasSuffix(#"{"error":{"code":"missing_host","message":"An HTTP/1.1 request needs a Host header"}}"#)
            )
            let old = try RawConnection(port: server.port)
            await old.write("GET /hello HTTP/1.0\r\n\r\n")
            let answer = await old.read()
            #expect(statusCode(answer) == 200 && answer.hasSuffix("hello"))
            try await Self.expectHealthy(server.port)
        }
    }

    /// A field that must have one value, sent twice with a second request pipelined behind it: 400
    /// `conflicting_headers`, and the body the second length would have framed never reaches a handler
    /// (libmicrohttpd read the first Content-Length and served both).
    @Test(arguments: [
        "Content-Length: 12\r\nContent-Length: 5", "Content-Length: 12, 5", "Host: u",
        "Authorization: a\r\nAuthorization: b",
    ])
    func aFieldSentTwiceIs400(_ fields: String) async throws {
        try await withServer(handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            let length = fields.hasPrefix("Content-Length") ? "" : "Content-Length: 12\r\n"
            await connection.write(
                "POST /echo HTTP/1.1\r\nHost: t\r\n\(length)\(fields)\r\nConnection: close\r\n\r\nhello"
                    + "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
            )
            let raw = await connection.read()
            #expect(statusCode(raw) == 400, "\(raw)")
            // "12, 5" is a malformed value to libmicrohttpd, which answers it itself.
            #expect(raw.contains("\"conflicting_headers\"") || fields.contains(","), "\(raw)")
            #expect(!raw.contains("hello"), "\(raw)")
            try await Self.expectHealthy(server.port)
        }
    }

    /// A body framed two ways, or by a coding the server cannot undo, is refused and the connection closed:
    /// the request pipelined behind it is not served.
    @Test(arguments: [
        ("Content-Length: 4\r\nTransfer-Encoding: chunked", 400, "conflicting_headers"),
        ("Transfer-Encoding: gzip", 501, "unsupported_transfer_encoding"),
        ("Transfer-Encoding: gzip, chunked", 501, "unsupported_transfer_encoding"),
    ])
    func aBodyFramedTwoWaysOrByAnUnknownCodingIsRefused(_ fields: String, _ status: Int, _ code: String) async throws {
        try await withServer(handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write(
                "POST /echo HTTP/1.1\r\nHost: t\r\n\(fields)\r\n\r\n0\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
            )
            let raw = await connection.read()
            #expect(statusCode(raw) == status, "\(raw)")
            #expect(raw.contains("\"\(code)\""), "\(raw)")
            #expect(raw.lowercased().contains("connection: close"), "\(raw)")
            #expect(!raw.contains("hello"), "\(raw)")
            try await Self.expectHealthy(server.port)
        }
    }

    /// The same Content-Length twice frames the body as one (RFC 9112 §6.3 allows it).
    @Test func oneContentLengthSentTwiceIsServed() async throws {
        try await withServer(handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write(
                "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n"
                    + "\r\nhello"
            )
            let raw = await connection.read()
            #expect(statusCode(raw) == 200 && raw.hasSuffix("hello"), "\(raw)")
        }
    }

    @Test func anAnnouncedBodyOverTheLimitGets413BeforeTheBodyIsSent() async throws {
        try await withServer(configure: { $0.maxBodyBytes = 1000 }, handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write(
                "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1001\r\n"
                    + "Expect: 100-continue\r\n\r\n"
            )
            let raw = await connection.read()
            #expect(statusCode(raw) == 413)
            #expect(raw.contains("{\"error\":{\"code\":\"payload_too_large\""))
            #expect(raw.lowercased().contains("x-request-id: "))
            #expect(!raw.contains("100 Continue"))
            try await Self.expectHealthy(server.port)
        }
    }

    @Test func aBodyAtTheLimitIsAccepted() async throws {
        try await withServer(configure: { $0.maxBodyBytes = 1000 }, handler: Self.router().handler) { server in
            let response = try await send("POST", server.port, "/echo", body: Data(repeating: 0x61, count: 1000))
            #expect(response.status == 200)
            #expect(response.body.count == 1000)
            let over = try await send("POST", server.port, "/echo", body: Data(repeating: 0x61, count: 1001))
            #expect(over.status == 413)
            #expect(over.errorCode == "payload_too_large")
        }
    }

    @Test func aChunkedBodyOverTheLimitGets413() async throws {
        try await withServer(configure: { $0.maxBodyBytes = 1000 }, handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "a", count: 600)
            for _ in 0..<4 {
                await connection.write(String(chunk.count, radix: 16) + "\r\n" + chunk + "\r\n")
            }
            await connection.write("0\r\n\r\n")
            let raw = await connection.read(until: "}}")
            #expect(statusCode(raw) == 413)
            #expect(raw.contains("payload_too_large"))
            #expect(!raw.contains(chunk))
            try await Self.expectHealthy(server.port)
        }
    }

    @Test func aChunkedBodyFarOverTheLimitIsCutOff() async throws {
        try await withServer(configure: { $0.maxBodyBytes = 1000 }, handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "a", count: 64 * 1024)
            var stillOpen = true
            for _ in 0..<64 where stillOpen {  // 4 MiB, well past limit + 1 MiB
                stillOpen = await connection.write(String(chunk.count, radix: 16) + "\r\n" + chunk + "\r\n")
            }
            if stillOpen { #expect(await connection.readsEndOfStream()) }
            try await Self.expectHealthy(server.port)
        }
    }

    @Test func aSlowClientIsTimedOutWhileOthersAreServed() async throws {
        try await withServer(configure: { $0.connectionTimeout = 1 }, handler: Self.router().handler) { server in
            let slow = try RawConnection(port: server.port)
            await slow.write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
            try await Self.expectHealthy(server.port)
            // libmicrohttpd closes the idle half-request after the 1 s timeout (the read times out at 10 s).
            #expect(await slow.readsEndOfStream())
            try await Self.expectHealthy(server.port)
        }
    }

    @Test func manySimultaneousConnectionsAreAllServed() async throws {
        // All from 127.0.0.1: over the default per-address cap of 64.
        try await withServer(configure: { $0.maxConnectionsPerAddress = 200 }, handler: Self.router().handler) {
            server in
            let connections = try (0..<100).map { _ in try RawConnection(port: server.port) }
            let answers = await withTaskGroup(of: Int?.self) { group in
                for connection in connections {
                    group.addTask {
                        await connection.write("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                        return statusCode(await connection.read())
                    }
                }
                var statuses: [Int?] = []
                for await status in group { statuses.append(status) }
                return statuses
            }
            #expect(answers.count == 100)
            #expect(answers.allSatisfy { $0 == 200 }, "\(answers)")
        }
    }
}
