import Foundation
import RelayCore
import Synchronization
import Testing

@testable import RelayHTTP

/// The body pace, the range cap, trusted proxies' exemption and shedding near the total, on real sockets
/// from several loopback addresses. Waits are generous bounds, never timings; the flood of thousands of
/// connections is tested against `push-relay serve` in CLITests (ConnectionSlotsProcessTests).
@Suite struct ConnectionCapTests {
    /// Whether `/hold`'s handler runs, and whether it may answer.
    final class Gate: Sendable {
        let entered = Atomic<Bool>(false)
        let released = Atomic<Bool>(false)

        /// Waits up to 20 s for the handler to run.
        func entry() async -> Bool { await Self.wait { entered.load(ordering: .acquiring) } }

        /// Waits up to 20 s for the test to let the handler answer.
        func release() async -> Bool { await Self.wait { released.load(ordering: .acquiring) } }

        private static func wait(until condition: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(20)
            while !condition(), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return condition()
        }
    }

    static func router(_ gate: Gate = Gate()) -> Router {
        var router = Router()
        router.get("/hello") { _, _ in .text("hello") }
        router.post("/echo") { request, _ in .text("got \(request.body.count)") }
        router.get("/hold") { _, _ in
            gate.entered.store(true, ordering: .releasing)
            _ = await gate.release()
            return .text("held")
        }
        return router
    }

    static let hello = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"

    /// 20 pipelined requests for 512 KiB answers each: 10 MiB, more than loopback's socket buffers hold.
    static let pipelinedBig = String(repeating: "GET /big HTTP/1.1\r\nHost: t\r\n\r\n", count: 20)

    static func bigRouter() -> Router {
        var router = router()
        let big = Data(repeating: UInt8(ascii: "z"), count: 512 * 1024)
        router.get("/big") { _, _ in HTTPResponse(status: 200, body: big) }
        return router
    }

    /// A client that pipelines large answers and never reads them is closed once it falls behind the pace
    /// (after its grace), long before the inactivity timeout; one that reads them is served in full.
    @Test func aClientNotTakingItsAnswersIsClosedAtThePace() async throws {
        try await withServer(
            configure: {
                $0.minBodyBytesPerSecond = 1000
                $0.bodyRateGraceSeconds = 1
                $0.connectionTimeout = 120
            },
            handler: Self.bigRouter().handler
        ) { server in
            let reader = try RawConnection(port: server.port, receiveTimeout: 20)
            await reader.write("GET /big HTTP/1.1\r\nHost: t\r\n\r\n" + Self.hello)
            let read = await reader.read(until: "\r\n\r\nhello")
            #expect(statusCode(read) == 200 && read.hasSuffix("hello"))
            #expect(read.utf8.count > 512 * 1024, "the large answer came whole")

            let slow = try RawConnection(port: server.port, receiveTimeout: 30, receiveBuffer: 2048)
            await slow.write(Self.pipelinedBig)
            let deadline = ContinuousClock.now + .seconds(30)
            while server.statistics.closed(.slowAnswer) == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(server.statistics.closed(.slowAnswer) == 1)
            #expect(await slow.readsEndOfStream())
        }
    }

    /// At the watermark, clients that stopped reading their answers are dropped (their handlers finished),
    /// so a new client is answered though slow readers filled every slot.
    @Test func nearTheTotalSlowReadersAreDropped() async throws {
        try await withServer(
            configure: {
                $0.maxConnections = 10
                $0.bodyRateGraceSeconds = 600
                $0.connectionTimeout = 600
            },
            handler: Self.bigRouter().handler
        ) { server in
            var readers: [RawConnection] = []
            for _ in 0..<10 {
                let connection = try RawConnection(port: server.port, receiveTimeout: 20, receiveBuffer: 2048)
                await connection.write(Self.pipelinedBig)
                readers.append(connection)
                try await Task.sleep(for: .milliseconds(50))
            }
            let newcomer = try RawConnection(port: server.port, receiveTimeout: 20)
            await newcomer.write(Self.hello)
            #expect(statusCode(await newcomer.read(until: "hello")) == 200)
            #expect(server.statistics.closed(.shed) >= 1)
            withExtendedLifetime(readers) {}
        }
    }

    /// A body at 5 bytes a second is closed, without an answer, soon after its grace, long before its 30 s
    /// deadline; one at about 1,000 bytes a second, well over the asked 100 (so a busy machine's late wake-ups
    /// cannot bring it below), is answered.
    @Test func aBodyBelowThePaceIsClosedAndOneAboveItAnswered() async throws {
        try await withServer(
            configure: {
                $0.minBodyBytesPerSecond = 100
                $0.bodyRateGraceSeconds = 1
                $0.bodyTimeout = 30
            },
            handler: Self.router().handler
        ) { server in
            let start = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n"
            let slow = try RawConnection(port: server.port)
            await slow.write(start)
            let outcome = await slow.trickle(UInt8(ascii: "a"), every: .milliseconds(200), atMost: .seconds(25))
            #expect(outcome.closed)
            #expect(outcome.received.isEmpty, "answered: \(outcome.received)")
            #expect(server.statistics.closed(.slowBody) == 1)
            #expect(server.statistics.closed(.bodyDeadline) == 0)

            let steady = try RawConnection(port: server.port, receiveTimeout: 20)
            await steady.write(start)
            for _ in 0..<4 {
                await steady.write(String(repeating: "b", count: 250))
                try await Task.sleep(for: .milliseconds(250))
            }
            let answer = await steady.read(until: "got 1000")
            #expect(statusCode(answer) == 200, "\(answer)")
            #expect(server.statistics.closed(.slowBody) == 1)
        }
    }

    /// Two addresses of 127.0.0.0/24 fill its cap of 2: a third address of it is closed at accept, while
    /// 127.0.1.1, in another /24, is answered.
    @Test func theRangeCapClosesAThirdAddressOfTheRange() async throws {
        try await withServer(
            configure: {
                $0.maxConnectionsPerAddress = nil
                $0.maxConnectionsPerPrefix = 2
            },
            handler: Self.router().handler
        ) { server in
            let first = try RawConnection(port: server.port, from: "127.0.0.2")
            let second = try RawConnection(port: server.port, from: "127.0.0.3")
            await first.write(Self.hello)
            await second.write(Self.hello)
            #expect(statusCode(await first.read(until: "hello")) == 200)
            #expect(statusCode(await second.read(until: "hello")) == 200)
            let third = try RawConnection(port: server.port, from: "127.0.0.4")
            await third.write(Self.hello)
            #expect(await third.readsEndOfStream())
            let elsewhere = try RawConnection(port: server.port, from: "127.0.1.1")
            await elsewhere.write(Self.hello)
            #expect(statusCode(await elsewhere.read(until: "hello")) == 200)
            #expect(server.statistics.closed(.prefixCap) == 1)
            #expect(server.statistics.closed(.addressCap) == 0)
            withExtendedLifetime((first, second)) {}
        }
    }

    /// A trusted proxy's connections are capped neither per address nor per range; another peer is.
    @Test func aTrustedProxyIsNotCapped() async throws {
        try await withServer(
            configure: {
                $0.maxConnectionsPerAddress = 1
                $0.maxConnectionsPerPrefix = 1
                $0.trustedProxies = ["127.0.0.5"]
            },
            handler: Self.router().handler
        ) { server in
            var proxied: [RawConnection] = []
            for _ in 0..<4 {
                let connection = try RawConnection(port: server.port, from: "127.0.0.5")
                await connection.write(Self.hello)
                proxied.append(connection)
            }
            for connection in proxied { #expect(statusCode(await connection.read(until: "hello")) == 200) }
            let direct = try RawConnection(port: server.port, from: "127.0.2.1")
            await direct.write(Self.hello)
            #expect(statusCode(await direct.read(until: "hello")) == 200)
            let again = try RawConnection(port: server.port, from: "127.0.2.1")
            await again.write(Self.hello)
            #expect(await again.readsEndOfStream())
            #expect(server.statistics.closed(.addressCap) == 1)
            withExtendedLifetime(direct) {}
        }
    }

    /// At 9 of 10 connections (the 90 % watermark) a new connection drops the oldest waiting one, never the
    /// request whose handler runs; the new client is answered and so is the held request.
    @Test func nearTheTotalTheOldestWaitIsDroppedNotARunningRequest() async throws {
        let gate = Gate()
        try await withServer(configure: { $0.maxConnections = 10 }, handler: Self.router(gate).handler) { server in
            let running = try RawConnection(port: server.port, receiveTimeout: 30)
            await running.write("GET /hold HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await gate.entry())
            var idle: [RawConnection] = []
            for _ in 0..<7 {
                let connection = try RawConnection(port: server.port)
                await connection.write("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ")
                idle.append(connection)
                try await Task.sleep(for: .milliseconds(20))
            }
            let newcomer = try RawConnection(port: server.port)
            #expect(await idle[0].readsEndOfStream())
            await newcomer.write(Self.hello)
            #expect(statusCode(await newcomer.read(until: "hello")) == 200)
            #expect(server.statistics.closed(.shed) >= 1)
            #expect(server.statistics.closed(.headerDeadline) == 0)
            gate.released.store(true, ordering: .releasing)
            #expect(statusCode(await running.read(until: "held")) == 200)
            withExtendedLifetime(idle) {}
        }
    }
}
