import APNsMock
import Foundation
import RelayCore
import RelaySQLite
import RelayStore
import RelayTestSupport
import Testing

/// A relay that stalls with claimed jobs queued or in flight (a stopped or frozen process) and resumes after
/// their leases ended leaves the queued ones unsent and records no retry of the others: another relay may
/// have claimed them meanwhile.
@Suite struct LeaseEndTests {
    /// A relay on `time` with one send slot, a 60 s lease and a 20 s request timeout (so a job starts at most
    /// 40 s after its claim), before the mock APNs that runs `script`.
    static func withOneSlotRelay(
        script: MockScript,
        time: ManualTimeSource,
        _ body: (RelayHarness) async throws -> Void
    ) async throws {
        try await withRelayAndMock(
            script: script,
            time: time,
            configure: {
                $0.delivery.concurrency = 1
                $0.delivery.leaseSeconds = 60
                $0.delivery.requestTimeoutMilliseconds = 20_000
            },
            body
        )
    }

    /// The relay's one send slot waits five seconds for its first push's answer, two more jobs queued behind it,
    /// while the clock moves past their lease and another relay claims all three. The relay records its first
    /// push and sends neither queued job; they stay with the other relay, counted `lease_ended`.
    @Test func jobsQueuedPastTheirLeaseAreLeftToTheNextClaim() async throws {
        let time = ManualTimeSource(now: Date())
        let slowFirst = MockScript(devices: [.init(token: "*", delayMs: 5_000, count: 1)])
        try await Self.withOneSlotRelay(script: slowFirst, time: time) { relay in
            let tokens = (0..<3).map { _ in randomToken() }
            for (index, token) in tokens.enumerated() {
                try await relay.register(token, user: "user\(index)", rooms: ["crowd"])
            }
            let other = try SQLiteStore(path: relay.configuration.storage.sqlitePath, logger: .disabled())
            _ = try await relay.webhook(["roomId": "crowd", "senderId": "s", "text": "hi"])
            let deadline = ContinuousClock.now + .seconds(60)
            while try await other.outboxCounts(now: time.now)[relay.app.id]?.leased != tokens.count {
                try #require(ContinuousClock.now < deadline, "the relay never claimed the fan-out")
                try await Task.sleep(for: .milliseconds(20))
            }
            time.advance(by: .seconds(61))
            let taken = try await other.claimDueDeliveries(
                now: time.now,
                limit: 10,
                leaseSeconds: 60,
                owner: "relay-b"
            )
            #expect(taken.count == tokens.count)

            let outcome = { (name: String) in
                "pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"\(name)\",reason=\"none\"}"
            }
            let leaseEnded = outcome("lease_ended"), sent = outcome("sent")
            let samples = try await relay.metrics { ($0[leaseEnded] ?? 0) + ($0[sent] ?? 0) >= 3 }
            #expect(samples[sent] == 1)
            #expect(samples[leaseEnded] == 2)
            #expect(relay.mock.requests.count == 1)
            let stillOthers = try await other.claimDueDeliveries(
                now: time.now,
                limit: 10,
                leaseSeconds: 60,
                owner: "relay-c"
            )
            #expect(stillOthers.isEmpty, "the relay freed or took the other relay's leases")
        }
    }

    /// The relay's one push waits five seconds for its answer, a 503, while the clock moves past its lease and
    /// another relay claims the delivery. The late retry is not recorded: the delivery stays as the other
    /// relay claimed it, no attempt counted, its due time unmoved and so still under that relay's lease. A
    /// second message's push, recorded after the retry's batch, shows that batch was written.
    @Test func aRetryThatComesBackAfterItsLeaseIsNotRecorded() async throws {
        let time = ManualTimeSource(now: Date())
        let slow503 = MockScript(devices: [
            .init(token: "*", status: 503, reason: "ServiceUnavailable", delayMs: 5_000, count: 1)
        ])
        try await Self.withOneSlotRelay(script: slow503, time: time) { relay in
            try await relay.register(randomToken(), user: "user0", rooms: ["crowd"])
            let other = try SQLiteStore(path: relay.configuration.storage.sqlitePath, logger: .disabled())
            let first = try await relay.webhook(["roomId": "crowd", "senderId": "s", "text": "hi"])
            let deadline = ContinuousClock.now + .seconds(60)
            while try await other.outboxCounts(now: time.now)[relay.app.id]?.leased != 1 {
                try #require(ContinuousClock.now < deadline, "the relay never claimed the delivery")
                try await Task.sleep(for: .milliseconds(20))
            }
            // The other relay claims first, then the relay's clock passes the lease: the relay, with room in its
            // lanes, would otherwise claim the delivery back itself.
            let past = time.now.addingTimeInterval(61)
            let taken = try await other.claimDueDeliveries(now: past, limit: 10, leaseSeconds: 60, owner: "relay-b")
            #expect(taken.count == 1)
            time.advance(by: .seconds(61))
            let retry =
                "pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"retry\",reason=\"ServiceUnavailable\"}"
            #expect(try await relay.metrics { ($0[retry] ?? 0) >= 1 }[retry] == 1)

            let second = try await relay.webhook(["roomId": "crowd", "senderId": "s", "text": "again"])
            let secondId = try #require(UUID(uuidString: second.notificationId))
            while try await other.notification(appId: relay.app.id, id: secondId)?.summary.counts.sent != 1 {
                try #require(ContinuousClock.now < deadline, "the second push was never recorded")
                try await Task.sleep(for: .milliseconds(20))
            }
            let firstId = try #require(UUID(uuidString: first.notificationId))
            let delivery = try #require(
                try await other.notification(appId: relay.app.id, id: firstId)?.deliveries.first
            )
            #expect(delivery.status == .pending && delivery.attempts == 0 && delivery.lastStatus == nil)
            let later = try await other.claimDueDeliveries(
                now: time.now.addingTimeInterval(30),
                limit: 10,
                leaseSeconds: 60,
                owner: "relay-c"
            )
            #expect(later.isEmpty, "the late retry moved the delivery out of the other relay's lease")
        }
    }
}
