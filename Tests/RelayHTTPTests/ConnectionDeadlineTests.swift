import Foundation
import RelayCore
import RelayHTTP
import Testing

/// Slow clients on real sockets: deadlines that trickled bytes do not extend, and the per-address cap. Waits
/// are generous bounds, never timings. Thousands of connections are tested against `push-relay serve` in
/// CLITests (ConnectionExhaustionTests), outside this process.
@Suite struct ConnectionDeadlineTests {
    static func router() -> Router {
        var router = Router()
        router.get("/hello") { _, _ in .text("hello") }
        router.get("/healthz") { _, _ in .text("ok") }
        router.post("/echo") { request, _ in .text("got \(request.body.count)") }
        router.get("/slow") { _, _ in
            try await Task.sleep(for: .milliseconds(4000))
            return .text("done")
        }
        return router
    }

    /// `GET /healthz` from 127.0.0.2 (another address of the loopback), answered within 30 s.
    static func healthzFromAnotherAddress(_ port: Int) async throws -> String {
        let client = try RawConnection(port: port, from: "127.0.0.2", receiveTimeout: 30)
        await client.write("GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        return await client.read(until: "ok")
    }

    /// What a slow client sends at once before trickling, and the deadline that should close it.
    enum SlowPart: String, CaseIterable, Sendable {
        case headers, body

        var start: String {
            switch self {
            case .headers: "GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: "
            case .body: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n"
            }
        }

        func closures(_ statistics: HTTPServerStatistics) -> (this: Int, other: Int) {
            switch self {
            case .headers: (statistics.closed(.headerDeadline), statistics.closed(.bodyDeadline))
            case .body: (statistics.closed(.bodyDeadline), statistics.closed(.headerDeadline))
            }
        }
    }

    /// A byte every 200 ms would keep the connection alive for ever under the 30 s inactivity timeout; the
    /// 1 s deadline of the part being trickled closes it, without an answer.
    @Test(arguments: SlowPart.allCases)
    func aClientTricklingPastItsDeadlineIsClosed(part: SlowPart) async throws {
        try await withServer(
            configure: {
                $0.connectionTimeout = 30
                if part == .headers { $0.headerTimeout = 1 } else { $0.bodyTimeout = 1 }
            },
            handler: Self.router().handler
        ) { server in
            let slow = try RawConnection(port: server.port)
            await slow.write(part.start)
            let outcome = await slow.trickle(UInt8(ascii: "a"), every: .milliseconds(200), atMost: .seconds(20))
            #expect(outcome.closed)
            #expect(outcome.received.isEmpty, "answered: \(outcome.received)")
            #expect(part.closures(server.statistics) == (1, 0))
            #expect(try await send("GET", server.port, "/hello").status == 200)
        }
    }

    /// The deadlines bound receiving only: a handler slower than both is answered, and the next request on
    /// the connection gets a fresh header deadline from the end of the previous one.
    @Test func aSlowHandlerIsAnsweredAndTheNextRequestGetsAFreshDeadline() async throws {
        try await withServer(
            configure: {
                // 3 s, so that a busy test machine writes the second request within its fresh deadline.
                $0.headerTimeout = 3
                $0.bodyTimeout = 3
            },
            handler: Self.router().handler
        ) { server in
            let connection = try RawConnection(port: server.port, receiveTimeout: 30)
            await connection.write("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(statusCode(await connection.read(until: "done")) == 200)
            await connection.write("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(statusCode(await connection.read(until: "hello")) == 200)
            // Idle after its answer, the keep-alive connection is closed at the next header deadline, as idle.
            #expect(await connection.readsEndOfStream())
            #expect(server.statistics.closed(.idle) == 1)
            #expect(server.statistics.closed(.headerDeadline) == 0)
        }
    }

    /// A keep-alive connection that begins its next request's head and stops is closed at the header deadline
    /// as one that never finished its head, not as an idle one.
    @Test func aKeepAliveConnectionThatStopsInItsNextHeadIsNotIdle() async throws {
        try await withServer(configure: { $0.headerTimeout = 1 }, handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port, receiveTimeout: 30)
            await connection.write("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(statusCode(await connection.read(until: "hello")) == 200)
            await connection.write("GET /hello HTTP/1.1\r\nHo")
            #expect(await connection.readsEndOfStream())
            #expect(server.statistics.closed(.headerDeadline) == 1)
            #expect(server.statistics.closed(.idle) == 0)
        }
    }

    @Test func thePerAddressCapRefusesAnExtraConnectionWhileAnotherAddressConnects() async throws {
        try await withServer(configure: { $0.maxConnectionsPerAddress = 2 }, handler: Self.router().handler) {
            server in
            let first = try RawConnection(port: server.port)
            let second = try RawConnection(port: server.port)
            await first.write("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            await second.write("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(statusCode(await first.read(until: "hello")) == 200)
            #expect(statusCode(await second.read(until: "hello")) == 200)
            let third = try RawConnection(port: server.port)
            await third.write("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await third.readsEndOfStream())
            #expect(statusCode(try await Self.healthzFromAnotherAddress(server.port)) == 200)
            withExtendedLifetime((first, second)) {}
        }
    }

    @Test func theConnectionLimitInForceIsTheConfiguredOneWhenTheOpenFileLimitAllowsIt() async throws {
        try await withServer(configure: { $0.maxConnections = 50 }, handler: Self.router().handler) { server in
            #expect(server.statistics.connectionLimit == 50)
        }
        try await withServer(handler: Self.router().handler) { server in
            #expect(server.statistics.connectionLimit == min(10_000, OpenFileLimit.connectionCapacity))
            #expect(server.statistics.connectionLimit > 1024 || OpenFileLimit.current < 1024 + OpenFileLimit.reserve)
        }
    }
}
