import Foundation
import RelayCore
import RelayCrypto
import RelayStore
import Testing

@testable import RelayServer

/// The retention job through the real relay: a finished notification is readable until
/// `storage.retentionHours` have passed, then deleted, and `GET /v1/notifications/{id}` answers 404.
@Suite struct RetentionTests {
    struct ErrorBody: Decodable {
        struct Detail: Decodable { var code: String }
        var error: Detail
    }

    /// The `error.code` of an error answer.
    static func errorCode(_ response: APIResponse) throws -> String { try response.decode(ErrorBody.self).error.code }

    /// A serving relay marks each app of its configuration served, as `storage end-pending` reads it.
    @Test func aServingRelayMarksItsAppsServed() async throws {
        try await withRelayAndMock { harness in
            let relay = try harness.relay
            let job = ServedApps.job(harness.app.id)
            let deadline = ContinuousClock.now + .seconds(60)
            var mark = try await relay.store.lastPeriodicRun(job: job)
            while mark == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                mark = try await relay.store.lastPeriodicRun(job: job)
            }
            #expect(ServedApps.isServed(lastMark: mark, now: Date()))
            #expect(try await relay.store.lastPeriodicRun(job: ServedApps.job("no-such-app")) == nil)
        }
    }

    @Test func aFinishedNotificationIsDeletedAfterTheRetentionAndThenUnknown() async throws {
        let time = ManualTimeSource(now: Date())
        try await withRelayAndMock(time: time, configure: { $0.storage.retentionHours = 24 }) { harness in
            let token = randomToken()
            try await harness.register(token, user: "bob", rooms: ["room-1"])
            let answer = try await harness.webhook(["roomId": "room-1", "senderId": "alice", "text": "hi"])
            #expect(try await harness.settled(answer.notificationId).counts.sent == 1)
            let relay = try harness.relay
            let job = RetentionJob(
                store: relay.store,
                retention: .seconds(24 * 3600),
                owner: "test",
                time: time,
                logger: .disabled()
            )
            time.advance(by: .seconds(23 * 3600))
            // The relay's own job may have taken this run: either way nothing is old enough yet.
            #expect(try await job.runIfDue() ?? 0 == 0)
            #expect(try await harness.call("GET", "/v1/notifications/\(answer.notificationId)").status == 200)
            time.advance(by: .seconds(3601))
            let deleted = try await job.runIfDue()
            #expect(deleted == 1 || deleted == nil)
            let gone = try await harness.call("GET", "/v1/notifications/\(answer.notificationId)")
            let unknown = try await harness.call("GET", "/v1/notifications/\(UUID().uuidString.lowercased())")
            #expect(gone.status == 404 && unknown.status == 404)
            #expect(try Self.errorCode(gone) == Self.errorCode(unknown))
        }
    }

    @Test func aDittoTombstoneIsKeptForItsRetentionThenAnOlderReplayAppliesAgain() async throws {
        let time = ManualTimeSource(now: Date())
        let secret = "ingest-secret-retention-0123456789"
        try await withRelayAndMock(
            time: time,
            configure: {
                $0.apps[0].ditto = Configuration.Ditto(
                    ingestSecretSHA256: [Digest.sha256(Data(secret.utf8)).hexString],
                    tombstoneRetentionHours: 2
                )
            }
        ) { harness in
            func send(_ txn: Int, _ change: [String: Any]) async throws -> [String: Any] {
                let event: [String: Any] = [
                    "txnId": txn, "type": "documentChanged", "collection": "users", "change": change,
                ]
                let answer = try await harness.call("POST", "/v1/ditto/events", json: [event], key: secret)
                try #require(answer.status == 200, "\(answer.text)")
                return try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            }
            let bob: [String: Any] = ["method": "upsert", "oldValue": NSNull(), "newValue": ["_id": "bob"]]
            _ = try await send(5, bob)
            _ = try await send(7, ["method": "remove", "value": ["_id": "bob"]])
            let relay = try harness.relay
            let job = RetentionJob(
                store: relay.store,
                retention: .seconds(24 * 3600),
                owner: "test",
                time: time,
                logger: .disabled(),
                tombstoneRetention: [harness.app.id: .seconds(2 * 3600)]
            )
            time.advance(by: .seconds(3600))
            _ = try await job.runIfDue()
            #expect(try await send(5, bob)["ignored"] as? Int == 1, "the tombstone holds within its retention")
            time.advance(by: .seconds(3601))
            // The relay's own job may take this run: then its purge is awaited.
            _ = try await job.runIfDue()
            let deadline = Date().addingTimeInterval(60)
            var applied = try await send(5, bob)["applied"] as? Int
            while applied != 1 && Date() < deadline {
                try await Task.sleep(for: .milliseconds(200))
                applied = try await send(5, bob)["applied"] as? Int
            }
            #expect(applied == 1, "past its retention the tombstone is gone and the older upsert applies")
        }
    }
}
