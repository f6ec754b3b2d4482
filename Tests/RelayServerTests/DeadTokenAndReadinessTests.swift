import APNsMock
import Foundation
import RelayCore
import RelayServer
import Testing

@testable import RelaySQLite
@testable import RelayStore

@Suite struct DeadTokenAndReadinessTests {
    @Test func deadTokensListTheAppsRetiredTokens() async throws {
        let token = FeedbackHarness.randomToken()
        let apnsTimestamp = FeedbackHarness.futureAPNsTimestamp()
        let script = MockScript(devices: [
            .init(token: token, status: 410, reason: "Unregistered", timestamp: apnsTimestamp)
        ])
        try await FeedbackHarness.with(appCount: 2, script: script) { harness in
            let (app, other) = (harness.apps[0], harness.apps[1])
            try await harness.registerAndNotify(token: token, user: "bob", app: app)
            let list = try await harness.deadTokens(count: 1, app: app)
            #expect(list.count == 1)
            let entry = try #require(list.first)
            #expect(entry["token"] as? String == token)
            #expect(entry["userId"] as? String == "bob")
            #expect(entry["environment"] as? String == "sandbox")
            #expect(entry["reason"] as? String == "Unregistered")
            #expect(
                entry["apnsTimestamp"] as? String
                    == Timestamp.rfc3339(Date(timeIntervalSince1970: Double(apnsTimestamp) / 1000))
            )
            let retiredAt = try #require((entry["retiredAt"] as? String).flatMap(Timestamp.parse))

            let atRetirement = try await harness.call(
                "GET",
                "/v1/dead-tokens?since=\(Timestamp.rfc3339(retiredAt))",
                key: app.apiKey
            )
            #expect((try atRetirement.json()["deadTokens"] as? [Any])?.count == 1)
            let future = try await harness.call("GET", "/v1/dead-tokens?since=2999-01-01T00:00:00Z", key: app.apiKey)
            #expect(future.status == 200)
            #expect((try future.json()["deadTokens"] as? [Any])?.isEmpty == true)

            let bad = try await harness.call("GET", "/v1/dead-tokens?since=yesterday", key: app.apiKey)
            #expect(bad.status == 400)
            let error = try #require(try bad.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "invalid_query")
            #expect(error["message"] as? String == "since must be an RFC 3339 time")

            let foreign = try await harness.call("GET", "/v1/dead-tokens", key: other.apiKey)
            #expect(foreign.status == 200)
            #expect((try foreign.json()["deadTokens"] as? [Any])?.isEmpty == true)
            #expect(try await harness.call("GET", "/v1/dead-tokens", key: nil).status == 401)
        }
    }

    @Test func readyWhenStorageAndAPNsAreReachable() async throws {
        try await FeedbackHarness.with { harness in
            // A probe can miss its 2 s on a machine busy with the other tests; a result is kept 10 s, so the
            // check is asked again past that before it counts as failed.
            let deadline = ContinuousClock.now + .seconds(25)
            var answer = try await harness.call("GET", "/readyz", key: nil)
            while answer.status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .seconds(1))
                answer = try await harness.call("GET", "/readyz", key: nil)
            }
            #expect(answer.status == 200, "\(answer.text)")
            let json = try answer.json()
            #expect(json["status"] as? String == "ready")
            // The API's listener names no app; the admin listener has a check per app.
            #expect(json["checks"] as? [String: String] == ["storage": "ok", "push": "ok"])
            let admin = try await harness.adminCall("/readyz")
            #expect(admin.status == 200, "\(admin.text)")
            #expect(
                try admin.json()["checks"] as? [String: String]
                    == ["storage": "ok", "apns:app0": "ok", "fcm:app0": "ok"]
            )
        }
    }

    @Test func aScrapeStormOpensOneProbeConnection() async throws {
        try await FeedbackHarness.with(appCount: 3) { harness in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await harness.call("GET", "/readyz", key: nil).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 8))
            // Three apps on one endpoint, eight scrapes at once: one probe connection, the rest cached.
            #expect(harness.mock.acceptedConnections == 1)
        }
    }

    /// An app whose push services cannot be reached is reported in the body, and the relay stays ready:
    /// that app's pushes wait in the outbox while the other apps' go out.
    @Test func anUnreachableAppIsReportedAndTheRelayStaysReady() async throws {
        let closed = try FeedbackHarness.closedPort()
        defer { withExtendedLifetime(closed) {} }
        try await FeedbackHarness.with(appCount: 2) { configuration in
            configuration.apps[1].apns.endpoints.sandbox?.baseURL = "https://127.0.0.1:\(closed.port)"
            configuration.apps[1].apns.endpoints.production?.baseURL = "https://127.0.0.1:\(closed.port)"
            configuration.apps[1].fcm?.endpoint?.baseURL = "https://127.0.0.1:\(closed.port)"
        } _: { harness in
            let answer = try await harness.adminCall("/readyz")
            #expect(answer.status == 200, "\(answer.text)")
            let json = try answer.json()
            #expect(json["status"] as? String == "ready")
            let checks = try #require(json["checks"] as? [String: String])
            #expect(checks["storage"] == "ok" && checks["apns:app0"] == "ok")
            #expect(checks["apns:app1"] == "unreachable (connect)")
            #expect(checks["fcm:app0"] == "ok" && checks["fcm:app1"] == "unreachable (connect)")
            let aggregate = try await harness.call("GET", "/readyz", key: nil)
            #expect(aggregate.status == 200, "\(aggregate.text)")
            #expect(try aggregate.json()["checks"] as? [String: String] == ["storage": "ok", "push": "2 of 4 failing"])
        }
    }

    /// Root ignores file permissions, so a read-only file would not stop the write. `PRAGMA query_only`
    /// makes SQLite itself refuse every write on the store's connection with SQLITE_READONLY, the same answer
    /// a read-only file or mount gives, and `checkWritable()` runs its real write against it.
    @Test func unavailableWhenTheStoreRefusesWrites() async throws {
        try await FeedbackHarness.with { harness in
            let store = try #require(harness.relay.store as? SQLiteStore)
            try await store.execute("PRAGMA query_only = ON")
            // The storage probe runs every second in the background.
            var answer = try await harness.call("GET", "/readyz", key: nil)
            let refusing = ContinuousClock.now + .seconds(60)
            while answer.status != 503, ContinuousClock.now < refusing {
                try await Task.sleep(for: .milliseconds(100))
                answer = try await harness.call("GET", "/readyz", key: nil)
            }
            #expect(answer.status == 503, "\(answer.text)")
            let json = try answer.json()
            #expect(json["status"] as? String == "unavailable")
            #expect(json["checks"] as? [String: String] == ["storage": "unavailable (readOnly)", "push": "ok"])
            try await store.execute("PRAGMA query_only = OFF")
            // The storage check's result is refreshed every second.
            let deadline = ContinuousClock.now + .seconds(60)
            var status = try await harness.call("GET", "/readyz", key: nil).status
            while status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                status = try await harness.call("GET", "/readyz", key: nil).status
            }
            #expect(status == 200)
        }
    }

    /// A full disk: `PRAGMA max_page_count` at the file's current size makes SQLite answer SQLITE_FULL to the
    /// next write that needs a page, as a disk without room does. The API answers 503 `storage_unavailable`
    /// with `Retry-After`, records nothing, and takes writes again once there is room.
    @Test func aFullDiskIs503StorageUnavailableAndRecordsNothing() async throws {
        try await FeedbackHarness.with { harness in
            let store = try #require(harness.relay.store as? SQLiteStore)
            let key = harness.apps[0].apiKey
            try await store.execute("PRAGMA max_page_count = 1")
            var answer = FeedbackHarness.Answer(status: 0, body: Data())
            for index in 0..<200 where answer.status != 503 {
                answer = try await harness.call(
                    "POST",
                    "/v1/devices",
                    json: ["token": String(format: "%064x", index), "userId": "user\(index)", "rooms": ["r\(index)"]],
                    key: key
                )
                try #require([201, 503].contains(answer.status), "\(answer.text)")
            }
            #expect(answer.status == 503)
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == "storage_unavailable")
            #expect(answer.headers["retry-after"] == "5")
            try await store.execute("PRAGMA max_page_count = 1073741823")
            let again = try await harness.call(
                "POST",
                "/v1/devices",
                json: ["token": String(format: "%064x", 9999), "userId": "again"],
                key: key
            )
            #expect(again.status == 201, "\(again.text)")
        }
    }
}
