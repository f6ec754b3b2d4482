import Foundation
import RelayCore
import RelayHTTP
import Testing

/// Slow and numerous clients on real sockets: deadlines that trickled bytes do not extend, the per-address
/// cap, and more connections than `select()` could watch. Waits are generous bounds, never timings.
@Suite struct ConnectionDeadlineTests {
    static func router() -> Router {
        var router = Router()
        router.get("/hello") { _, _ in .text("hello") }
        router.get("/healthz") { _, _ in .text("ok") }
        router.post("/echo") { request, _ in .text("got \(request.body.count)") }
        router.get("/slow") { _, _ in
            try await Task.sleep(for: .milliseconds(2500))
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
            case .headers: (statistics.closedAtHeaderDeadline, statistics.closedAtBodyDeadline)
            case .body: (statistics.closedAtBodyDeadline, statistics.closedAtHeaderDeadline)
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
                $0.headerTimeout = 1
                $0.bodyTimeout = 1
            },
            handler: Self.router().handler
        ) { server in
            let connection = try RawConnection(port: server.port, receiveTimeout: 30)
            await connection.write("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(statusCode(await connection.read(until: "done")) == 200)
            await connection.write("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(statusCode(await connection.read(until: "hello")) == 200)
            // Idle after its answer, the keep-alive connection is closed at the next header deadline.
            #expect(await connection.readsEndOfStream())
            #expect(server.statistics.closedAtHeaderDeadline == 1)
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

    /// The case: a slow-headers client and 1,100 connections trickling a byte a second from
    /// 127.0.0.1, with the default limits; a client at 127.0.0.2 still gets its answer.
    @Test func tricklingConnectionsFromOneAddressLeaveTheServerToOthers() async throws {
        OpenFileLimit.raiseToHardLimit()
        try await withServer(handler: Self.router().handler) { server in
            let slow = try RawConnection(port: server.port)
            await slow.write("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ")
            let flood = try await ConnectionFlood.open(port: server.port, count: 1100)
            flood.trickle(every: .seconds(1))
            let answer = try await Self.healthzFromAnotherAddress(server.port)
            let open = server.statistics.openConnections
            await flood.stop()
            #expect(statusCode(answer) == 200, "\(answer)")
            // The default cap of 64 per address holds the flood and the slow client to 64 connections.
            #expect(open <= 64 + 1, "\(open) open")
            withExtendedLifetime(slow) {}
        }
    }

    /// With no per-address cap, 1,100 connections stay open at once (past `select()`'s 1,024) and the
    /// server still answers another client.
    @Test func moreThan1024ConnectionsAreHeldAtOnce() async throws {
        OpenFileLimit.raiseToHardLimit()
        try await withServer(
            configure: {
                $0.maxConnectionsPerAddress = nil
                $0.headerTimeout = 120
            },
            handler: Self.router().handler
        ) { server in
            #expect(server.statistics.connectionLimit >= 1101, "\(server.statistics)")
            let flood = try await ConnectionFlood.open(port: server.port, count: 1100)
            flood.trickle(every: .seconds(1))
            let deadline = ContinuousClock.now + .seconds(30)
            while server.statistics.openConnections < 1100, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let open = server.statistics.openConnections
            let answer = try await Self.healthzFromAnotherAddress(server.port)
            await flood.stop()
            #expect(open >= 1100, "\(open) open")
            #expect(statusCode(answer) == 200, "\(answer)")
        }
    }
}
