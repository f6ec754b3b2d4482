import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayServer
@testable import RelayStore

/// What one user can add to the relay's store through its API: texts and names kept only as long as a push
/// shows them, a daily budget, one sender per message id, counts that hold under concurrent calls, a rate
/// for writes of every kind, and retired devices purged.
@Suite struct QuotaTests {
    static func limited(_ limits: Configuration.Limits) -> (inout Configuration) -> Void {
        LimitsTests.limited(limits)
    }

    static let webhookPath = "/v1/webhooks/did-send-message"
    static let imagePath = "/v1/webhooks/did-send-image-message"

    /// One value of the relay's SQLite database (a query of the tests' own).
    static func scalar(_ sql: String, in relay: RelayHarness) async throws -> Int64 {
        let store = try #require(try relay.relay.store as? SQLiteStore)
        return try await store.withConnection { try $0.scalar(sql) }
    }

    @Test func textsAndNamesAreKeptOnlyAsLongAsAPushShowsThem() async throws {
        try await withRelayAndMock(configure: Self.limited(Configuration.Limits())) { relay in
            let phone = randomToken()
            try await relay.register(randomToken(), user: "alice", rooms: ["room"])
            try await relay.register(phone, user: "bob", rooms: ["room"])
            let text = "Start " + String(repeating: "é", count: 15_000)
            let body: [String: Any] = [
                "roomId": "room", "text": text, "senderName": String(repeating: "👩‍👩‍👧", count: 800),
                "roomName": String(repeating: "r", count: 16_000),
            ]
            let sent = try await relay.call("POST", Self.webhookPath, json: body, user: "alice")
            #expect(sent.status == 202, "\(sent.text)")
            _ = try await relay.settled(try sent.decode(WebhookAnswer.self).notificationId)
            let textBytes = try await Self.scalar(
                "SELECT max(length(CAST(text AS BLOB))) FROM notifications",
                in: relay
            )
            #expect(textBytes <= Int64(ChatMessage.maxKeptTextBytes) && textBytes > 4000)
            for column in ["sender_name", "room_name"] {
                let bytes = try await Self.scalar(
                    "SELECT max(length(CAST(\(column) AS BLOB))) FROM notifications",
                    in: relay
                )
                #expect(bytes <= Int64(ChatMessage.maxShownNameBytes), "\(column)")
            }
            // The push shows the text's start, cut by its own rule.
            let request = try #require(relay.requests(to: phone).first)
            let shown = String(decoding: request.body, as: UTF8.self)
            #expect(shown.contains("Start éé") && request.body.count <= 4096)
        }
    }

    @Test func aUserPastItsDailyBudgetIsRefusedAndStoresNothing() async throws {
        let limits = Configuration.Limits(webhookBurst: 100, notificationsPerDay: 3)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            try await relay.register(randomToken(), user: "alice", rooms: ["room"])
            try await relay.register(randomToken(), user: "bob", rooms: ["room"])
            for index in 0..<3 {
                let sent = try await relay.call(
                    "POST",
                    Self.webhookPath,
                    json: ["roomId": "room", "text": "\(index)"],
                    user: "alice"
                )
                #expect(sent.status == 202, "\(sent.text)")
            }
            let stored = try await Self.scalar("SELECT count(*) FROM notifications", in: relay)
            let refused = try await relay.call(
                "POST",
                Self.webhookPath,
                json: ["roomId": "room", "text": "3"],
                user: "alice"
            )
            #expect(refused.status == 429 && refused.error?.code == "rate_limited", "\(refused.text)")
            let wait = try #require(Int(refused.header("Retry-After") ?? ""))
            #expect(wait >= 1 && wait <= 86_400)
            #expect(try await Self.scalar("SELECT count(*) FROM notifications", in: relay) == stored)
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="daily_budget"} 1"#))
            // Another user has a budget of its own; the backend has none.
            let bob = try await relay.call(
                "POST",
                Self.webhookPath,
                json: ["roomId": "room", "text": "b"],
                user: "bob"
            )
            #expect(bob.status == 202)
            _ = try await relay.webhook(["roomId": "room", "senderId": "alice", "text": "from the backend"])
        }
    }

    @Test func aMessageIdIsOneMessageOfOneSenderWhateverTheKind() async throws {
        try await withRelayAndMock(configure: Self.limited(Configuration.Limits())) { relay in
            try await relay.register(randomToken(), user: "alice", rooms: ["room"])
            try await relay.register(randomToken(), user: "bob", rooms: ["room"])
            let text: [String: Any] = ["roomId": "room", "text": "hello", "messageId": "m-1"]
            let image: [String: Any] = ["roomId": "room", "caption": "mine now", "messageId": "m-1"]
            let first = try await relay.call("POST", Self.webhookPath, json: text, user: "alice")
            #expect(first.status == 202)
            let id = try first.decode(WebhookAnswer.self).notificationId
            // Another sender, of either kind; the same sender with another kind.
            for (path, user) in [(Self.imagePath, "bob"), (Self.webhookPath, "bob"), (Self.imagePath, "alice")] {
                let body = path == Self.imagePath ? image : text
                let refused = try await relay.call("POST", path, json: body, user: user)
                #expect(refused.status == 409 && refused.error?.code == "message_id_conflict", "\(path) \(user)")
            }
            let again = try await relay.call("POST", Self.webhookPath, json: text, user: "alice")
            #expect(again.status == 200)
            #expect(try again.decode(WebhookAnswer.self).notificationId == id)
            #expect(try await Self.scalar("SELECT count(*) FROM notifications", in: relay) == 1)
        }
    }

    @Test func concurrentRegistrationsOverTheLimitEndAtTheLimit() async throws {
        let limits = Configuration.Limits(devicesPerUser: 5, writeBurst: 100)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        try await relay.call("POST", "/v1/devices", json: ["token": randomToken()], user: "alice")
                            .status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 5)
            #expect(statuses.filter { $0 == 409 }.count == 25)
            #expect(try await relay.devices(of: "alice").count == 5)
        }
    }

    @Test func writesOfEveryKindAreRateLimitedPerUser() async throws {
        let limits = Configuration.Limits(writesPerMinute: 1, writeBurst: 3)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            for room in ["r1", "r2", "r3"] {
                #expect(try await relay.call("PUT", "/v1/rooms/\(room)/members/alice", user: "alice").status == 204)
            }
            let join = try await relay.call("PUT", "/v1/rooms/r4/members/alice", user: "alice")
            #expect(join.status == 429 && join.error?.code == "rate_limited", "\(join.text)")
            #expect(Int(join.header("Retry-After") ?? "") ?? 0 >= 1)
            let leave = try await relay.call("DELETE", "/v1/rooms/r1/members/alice", user: "alice")
            #expect(leave.status == 429)
            let register = try await relay.call("POST", "/v1/devices", json: ["token": randomToken()], user: "alice")
            #expect(register.status == 429)
            #expect(try await relay.call("GET", "/v1/rooms/r4/members").text == #"{"members":[]}"#)
            #expect(try await relay.call("GET", "/v1/rooms/r1/members").text == #"{"members":["alice"]}"#)
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="writes"} 3"#))
            // Another user has a bucket of its own, and the backend is not limited.
            #expect(try await relay.call("PUT", "/v1/rooms/r1/members/bob", user: "bob").status == 204)
            for room in ["b1", "b2", "b3", "b4"] { try await relay.join(room, "alice") }
        }
    }

    /// Every read of what the store holds for a user takes from the user's reads bucket, apart from its
    /// writes; a read its input refuses takes nothing.
    @Test func readsOfEveryKindAreRateLimitedPerUser() async throws {
        let limits = Configuration.Limits(readsPerMinute: 1, readBurst: 3)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            try await relay.register(randomToken(), user: "alice", rooms: ["r1"])
            for path in ["/v1/rooms/r1/members?limit=0", "/v1/notifications/\(UUID().uuidString.lowercased())?limit=0"]
            {
                #expect(try await relay.call("GET", path, user: "alice").status == 400)
            }
            for path in ["/v1/users/alice/unread", "/v1/users/alice/devices", "/v1/rooms/r1"] {
                let read = try await relay.call("GET", path, user: "alice")
                #expect(read.status == 200, "\(path): \(read.text)")
            }
            for path in [
                "/v1/users/alice/settings", "/v1/rooms/r1/members", "/v1/notifications?messageId=m1",
                "/v1/notifications/\(UUID().uuidString.lowercased())", "/v1/users/alice/unread",
            ] {
                let refused = try await relay.call("GET", path, user: "alice")
                #expect(refused.status == 429 && refused.error?.code == "rate_limited", "\(path): \(refused.text)")
                #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
            }
            // Writes have a bucket of their own, so do other users; the backend is not limited.
            let write = try await relay.call("PUT", "/v1/rooms/r2/members/alice", user: "alice")
            #expect(write.status == 204, "\(write.text)")
            #expect(try await relay.call("GET", "/v1/users/bob/unread", user: "bob").status == 200)
            #expect(try await relay.call("GET", "/v1/users/alice/unread").status == 200)
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="reads"} 5"#))
        }
    }

    /// With `limitBackend`, the backend's reads count as the user its path names, in that user's own bucket;
    /// a read naming no user (a room, a notification) takes nothing.
    @Test func theBackendsReadsCountAsTheUserItsPathNames() async throws {
        let limits = Configuration.Limits(readsPerMinute: 1, readBurst: 2, limitBackend: true)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            try await relay.register(randomToken(), user: "alice", rooms: ["r1"])
            for _ in 0..<3 { #expect(try await relay.call("GET", "/v1/rooms/r1").status == 200) }
            #expect(try await relay.call("GET", "/v1/users/alice/unread").status == 200)
            #expect(try await relay.call("GET", "/v1/users/alice/devices").status == 200)
            let refused = try await relay.call("GET", "/v1/users/alice/settings")
            #expect(refused.status == 429 && refused.error?.code == "rate_limited", "\(refused.text)")
            #expect(try await relay.call("GET", "/v1/users/alice/unread", user: "alice").status == 429)
            #expect(try await relay.call("GET", "/v1/users/bob/unread").status == 200)
        }
    }

    @Test func theRetentionJobPurgesDevicesRetiredLongerAgo() async throws {
        let time = ManualTimeSource(now: Date())
        try await withRelayAndMock(time: time, configure: { $0.storage.retentionHours = 24 }) { relay in
            let (old, live) = (randomToken(), randomToken())
            try await relay.register(old, user: "bob")
            try await relay.register(live, user: "bob")
            let store = try #require(try relay.relay.store as? SQLiteStore)
            let retiredAt = Int64(time.now.timeIntervalSince1970 * 1000)
            try await store.execute(
                "UPDATE devices SET state = 'retired', retired_at = \(retiredAt) WHERE token = '\(old)'"
            )
            let job = RetentionJob(
                store: try relay.relay.store,
                retention: .seconds(24 * 3600),
                owner: "test",
                time: time,
                logger: .disabled()
            )
            time.advance(by: .seconds(23 * 3600))
            _ = try await job.runIfDue()
            #expect(try await relay.devices(of: "bob").count == 2)
            time.advance(by: .seconds(3601))
            _ = try await job.runIfDue()
            let devices = try await relay.devices(of: "bob")
            #expect(devices.map(\.token) == [live])
        }
    }
}
