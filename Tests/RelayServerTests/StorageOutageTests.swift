import APNsMock
import Foundation
import RelayCore
import RelayServer
import RelayTestSupport
import Testing

/// Issue 23: a frozen PostgreSQL (its processes stopped with SIGSTOP, resumed by a `defer` whatever
/// happens) answers clients 503 `storage_unavailable` instead of keeping them waiting, and stops the
/// dispatcher from starting pushes whose results it cannot record, so a freeze mid fan-out sends again at
/// most the pushes in flight, and every push is delivered once the database is back.
@Suite struct StorageOutageTests {
    /// With one connection busy on the frozen server, a second write cannot start by its deadline; both
    /// answer 503 `storage_unavailable`, and writes go through again once the server goes on.
    @Test func aWriteDuringAFreezeAnswersStorageUnavailable() async throws {
        let cluster = try await PostgresCluster.dedicated()
        try await withPostgresRelays(cluster: cluster, statementTimeout: 5) { relays in
            let relay = try await relays.start("relay-a") {
                $0.storage.postgres.poolSize = 1
                $0.storage.requestDeadlineMilliseconds = 1000
            }

            let frozen = try FrozenServer(dataDirectory: cluster.dataDirectory)
            defer { frozen.resume() }
            let guardTask = Task {
                try await Task.sleep(for: .seconds(90))
                frozen.resume()
            }
            defer { guardTask.cancel() }

            async let first = Self.register(randomToken(), through: relay, relays: relays)
            try await Task.sleep(for: .milliseconds(200))
            let second = try await Self.register(randomToken(), through: relay, relays: relays)
            let answers = [try await first, second]
            for answer in answers {
                #expect(answer.status == 503)
                #expect(answer.error?.code == "storage_unavailable")
                #expect(answer.header("Retry-After") != nil)
            }
            // One of them found no connection free by its deadline.
            #expect(answers.contains { $0.error?.message.contains("(unavailable)") == true })

            frozen.resume()
            let deadline = ContinuousClock.now + .seconds(60)
            while try await Self.register(randomToken(), through: relay, relays: relays).status != 201 {
                try #require(ContinuousClock.now < deadline, "writes did not come back")
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// The server freezes while a fan-out is being sent ten at a time: the relay sends no new push until
    /// it can record results again, so no more than the ten in flight are sent twice, and every device gets
    /// the message once the server goes on.
    @Test func aFreezeMidFanOutSendsAgainAtMostTheInFlightWindow() async throws {
        let cluster = try await PostgresCluster.dedicated()
        let slow = MockScript(devices: [.init(token: "*", delayMs: 20)])
        let concurrency = 10
        try await withPostgresRelays(script: slow, cluster: cluster, statementTimeout: 2) { relays in
            let relay = try await relays.start("relay-a") {
                $0.delivery.concurrency = concurrency
                $0.delivery.leaseSeconds = 3
                $0.delivery.pollIntervalMilliseconds = 200
            }
            let tokens = (0..<400).map { _ in randomToken() }
            try await relays.registerCrowd(tokens, through: relay)
            let id = try await relays.postToCrowd(through: relay)
            _ = try await relays.bed.mock.waitForRequests(count: 50, timeout: .seconds(60))

            do {
                let frozen = try FrozenServer(dataDirectory: cluster.dataDirectory)
                defer { frozen.resume() }
                // Longer than a lease: a relay that sent on would send its unrecorded pushes again.
                try await Task.sleep(for: .seconds(8))
            }

            // The first calls after the freeze may still meet a connection being given up (each of the pool's
            // once): 503 until then, so reads are back once several in a row answer.
            let deadline = ContinuousClock.now + .seconds(60)
            var answeredInARow = 0
            while answeredInARow < 10 {
                let status = try await Self.get("/v1/notifications/\(id)", from: relay, relays: relays).status
                answeredInARow = status == 200 ? answeredInARow + 1 : 0
                try #require(ContinuousClock.now < deadline, "reads did not come back")
                if status != 200 { try await Task.sleep(for: .milliseconds(200)) }
            }
            let view = try await relays.settled(id, through: relay)
            #expect(view.counts.sent == tokens.count)
            let sends = relays.sendsByToken()
            #expect(Set(sends.keys) == Set(tokens))
            let again = sends.values.reduce(0, +) - tokens.count
            #expect(again <= concurrency, "\(again) pushes sent twice")
        }
    }

    private static func get(_ path: String, from relay: Relay, relays: PostgresRelays) async throws -> APIResponse {
        let (status, body, headers) = try await exchange(
            port: relay.port,
            "GET",
            path,
            bearer: relays.bed.apps[0].apiKey,
            json: nil,
            body: nil,
            headers: [:]
        )
        return APIResponse(status: status, body: body, headers: headers)
    }

    private static func register(
        _ token: String,
        through relay: Relay,
        relays: PostgresRelays
    ) async throws
        -> APIResponse
    {
        let (status, body, headers) = try await exchange(
            port: relay.port,
            "POST",
            "/v1/devices",
            bearer: relays.bed.apps[0].apiKey,
            json: ["token": token, "userId": "late"],
            body: nil,
            headers: [:]
        )
        return APIResponse(status: status, body: body, headers: headers)
    }
}
