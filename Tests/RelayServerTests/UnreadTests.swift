import APNsMock
import FCMMock
import Foundation
import RelayCore
import RelayCrypto
import Testing

/// Read markers, unread counts and the badge end to end: a real relay on a real SQLite file, the mock APNs
/// and the mock FCM.
@Suite struct UnreadTests {
    /// Gives every app `apps[].badge`.
    static func withBadge(_ configuration: inout Configuration) {
        for index in configuration.apps.indices { configuration.apps[index].badge = true }
    }

    struct Unread: Decodable, Equatable {
        var total: Int
        var rooms: [String: Int]
    }

    struct Position: Decodable {
        var roomId: String
        var userId: String
        var readAt: String
    }

    /// `aps.badge` of an APNs request; nil without one.
    static func badge(_ request: RecordedRequest) throws -> Int? {
        let payload = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        return (payload["aps"] as? [String: Any])?["badge"] as? Int
    }

    /// `data.dittoChatUnread` of an FCM request; nil without one.
    static func unreadKey(_ request: RecordedMessage) throws -> String? {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        let message = try #require(body["message"] as? [String: Any])
        return (message["data"] as? [String: String])?["dittoChatUnread"]
    }

    /// alice's message in `general`, settled.
    static func message(_ relay: RelayHarness, _ text: String) async throws {
        let answer = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": text])
        _ = try await relay.settled(answer.notificationId, timeout: .seconds(60))
    }

    static func unread(_ relay: RelayHarness, _ user: String) async throws -> Unread {
        let response = try await relay.call("GET", "/v1/users/\(user)/unread")
        try #require(response.status == 200, "unread: \(response.status) \(response.text)")
        return try response.decode(Unread.self)
    }

    static func markRead(_ relay: RelayHarness, _ user: String, at: Date) async throws -> Position {
        let response = try await relay.call(
            "PUT",
            "/v1/rooms/general/read/\(user)",
            json: ["at": Timestamp.rfc3339(at)]
        )
        try #require(response.status == 200, "read: \(response.status) \(response.text)")
        return try response.decode(Position.self)
    }

    @Test func eachAlertCarriesTheRecipientsUnreadTotalWhenItIsSent() async throws {
        try await withRelayAndMock(configure: Self.withBadge) { relay in
            let phone = randomToken()
            let android = PlatformDeliveryTests.fcmToken(1)
            try await relay.register(phone, user: "bob", rooms: ["general"])
            try await relay.register(android, user: "bob", rooms: ["general"], platform: "android")
            try await relay.register(randomToken(), user: "alice", rooms: ["general"])
            // carol joins after the first message: her count starts there, so one notification renders two
            // badges.
            let carolsPhone = randomToken()
            for n in 1...3 {
                try await Self.message(relay, "hi \(n)")
                if n == 1 { try await relay.register(carolsPhone, user: "carol", rooms: ["general"]) }
            }
            #expect(try relay.requests(to: phone).map(Self.badge) == [1, 2, 3])
            #expect(try relay.requests(to: carolsPhone).map(Self.badge) == [1, 2])
            let fcm = try await relay.fcm.waitForRequests(count: 3, timeout: .seconds(60))
            #expect(try fcm.map(Self.unreadKey) == ["1", "2", "3"])
            #expect(try await Self.unread(relay, "bob") == Unread(total: 3, rooms: ["general": 3]))
            #expect(try await Self.unread(relay, "alice") == Unread(total: 0, rooms: [:]))

            // Read up to now: nothing unread, and the next alert counts from there (the read also sends bob's
            // devices a badge update, BadgeUpdateTests).
            _ = try await Self.markRead(relay, "bob", at: Date())
            #expect(try await Self.unread(relay, "bob") == Unread(total: 0, rooms: [:]))
            try await Self.message(relay, "hi 4")
            let alerts = relay.requests(to: phone).filter { $0.header("apns-priority") == "10" }
            #expect(try alerts.map(Self.badge) == [1, 2, 3, 1])
            #expect(try relay.requests(to: carolsPhone).map(Self.badge) == [1, 2, 3])
            let all = try await relay.fcm.waitForRequests(count: 5, timeout: .seconds(60))
            let messages = all.filter { $0.body.contains(#""notification""#) }.sorted { $0.time < $1.time }
            #expect(try Self.unreadKey(try #require(messages.last)) == "1")
        }
    }

    @Test func aReadPositionMovesOnlyForwardAndAFutureOneCountsAsNow() async throws {
        try await withRelayAndMock { relay in
            try await relay.register(randomToken(), user: "bob", rooms: ["general"])
            try await Self.message(relay, "one")
            let first = try await Self.markRead(relay, "bob", at: Date())
            // An earlier date leaves the position where it is.
            let earlier = try await Self.markRead(relay, "bob", at: Date().addingTimeInterval(-3600))
            #expect(earlier.readAt == first.readAt && earlier.roomId == "general" && earlier.userId == "bob")
            // A date a day ahead is kept as the relay's now, so a message after it still counts.
            let ahead = try await Self.markRead(relay, "bob", at: Date().addingTimeInterval(86_400))
            let kept = try #require(Timestamp.parse(ahead.readAt))
            #expect(kept <= Date().addingTimeInterval(1))
            try await Task.sleep(for: .milliseconds(5))
            try await Self.message(relay, "two")
            #expect(try await Self.unread(relay, "bob") == Unread(total: 1, rooms: ["general": 1]))
            // Without the badge setting, alerts carry none.
            #expect(try relay.mock.requests.allSatisfy { try Self.badge($0) == nil })
        }
    }

    @Test func aUserReadsAndMarksOnlyItsOwnAndTheBackendAnyones() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await relay.register(randomToken(), user: "bob", rooms: ["general"])
            try await relay.register(randomToken(), user: "alice", rooms: ["general"])
            try await Self.message(relay, "hello")
            var response = try await relay.call("GET", "/v1/users/bob/unread", user: "bob")
            #expect(
                response.status == 200 && (try? response.decode(Unread.self)) == Unread(total: 1, rooms: ["general": 1])
            )
            response = try await relay.call("GET", "/v1/users/alice/unread", user: "bob")
            #expect(response.status == 403 && response.text.contains("forbidden_user"))
            response = try await relay.call("GET", "/v1/users/bob/unread", authorize: false)
            #expect(response.status == 401)
            let at = ["at": Timestamp.rfc3339(Date())]
            response = try await relay.call("PUT", "/v1/rooms/general/read/alice", json: at, user: "bob")
            #expect(response.status == 403 && response.text.contains("forbidden_user"))
            response = try await relay.call("PUT", "/v1/rooms/general/read/bob", json: at, user: "bob")
            #expect(response.status == 200, "\(response.text)")
            #expect(try await Self.unread(relay, "bob").total == 0)
            // The backend marks anyone's.
            response = try await relay.call("PUT", "/v1/rooms/general/read/alice", json: at)
            #expect(response.status == 200, "\(response.text)")
            response = try await relay.call("PUT", "/v1/rooms/elsewhere/read/alice", json: at)
            #expect(response.status == 404 && response.text.contains("member_not_found"))
            for body: [String: Any] in [
                ["at": "yesterday"], ["at": 12], [:], ["at": Timestamp.rfc3339(Date()), "x": 1],
            ] {
                response = try await relay.call("PUT", "/v1/rooms/general/read/alice", json: body)
                #expect(response.status == 400, "\(body): \(response.status) \(response.text)")
            }
            // A time of day out of range is refused, not rolled over into the next day or hour.
            for at in ["2026-01-01T25:00:00Z", "2026-01-01T10:99:00Z"] {
                response = try await relay.call("PUT", "/v1/rooms/general/read/alice", json: ["at": at])
                #expect(response.status == 400 && response.text.contains("invalid_field"), "\(at): \(response.text)")
            }
        }
    }

    @Test func aDittoAppCountsMessageDocumentsAndBadgesItsPushes() async throws {
        let configure: (inout Configuration) -> Void = { configuration in
            DittoEventsTests.withDitto()(&configuration)
            Self.withBadge(&configuration)
        }
        try await withRelayAndMock(configure: configure) { relay in
            let phone = randomToken()
            try await relay.register(phone, user: "bob")
            let read = Timestamp.rfc3339(Date().addingTimeInterval(-3600))
            func upsert(_ txn: Int, _ collection: String, _ document: [String: Any]) -> [String: Any] {
                [
                    "txnId": txn, "type": "documentChanged", "collection": collection,
                    "change": ["method": "upsert", "oldValue": NSNull(), "newValue": document],
                ]
            }
            func message(
                _ txn: Int,
                _ id: String,
                from sender: String = "alice",
                archived: Bool = false
            )
                -> [String: Any]
            {
                upsert(
                    txn,
                    "messages",
                    [
                        "_id": id, "roomId": "room-1", "userId": sender, "text": "hi",
                        "createdOn": Timestamp.rfc3339(Date().addingTimeInterval(-1)), "isArchived": archived,
                    ]
                )
            }
            func post(_ events: [[String: Any]]) async throws {
                let response = try await relay.call(
                    "POST",
                    "/v1/ditto/events",
                    json: events,
                    key: DittoEventsTests.secret
                )
                try #require(response.status == 200, "\(response.text)")
            }
            try await post([
                upsert(1, "rooms", ["_id": "room-1", "name": "Team"]),
                upsert(2, "users", ["_id": "bob", "name": "Bob", "subscriptions": ["room-1": read]]),
                message(3, "m-1"),
            ])
            var pushes = try await relay.mock.waitForRequests(count: 1, timeout: .seconds(60))
            #expect(try Self.badge(pushes[0]) == 1)
            try await post([message(4, "m-2", from: "bob"), message(5, "m-3", archived: true), message(6, "m-4")])
            pushes = try await relay.mock.waitForRequests(count: 2, timeout: .seconds(60))
            #expect(try Self.badge(pushes[1]) == 2)
            #expect(try await Self.unread(relay, "bob") == Unread(total: 2, rooms: ["room-1": 2]))
            // Positions come from Ditto: the relay's own marker is refused.
            let response = try await relay.call(
                "PUT",
                "/v1/rooms/room-1/read/bob",
                json: ["at": Timestamp.rfc3339(Date())]
            )
            #expect(response.status == 409 && response.text.contains("managed_by_ditto"))
            try await post([upsert(7, "users", ["_id": "bob", "subscriptions": ["room-1": Timestamp.rfc3339(Date())]])])
            #expect(try await Self.unread(relay, "bob") == Unread(total: 0, rooms: [:]))
            // The read elsewhere sends bob's phone the badge update (BadgeUpdateTests).
            pushes = try await relay.mock.waitForRequests(count: 3, timeout: .seconds(60))
            #expect(pushes[2].header("apns-priority") == "5" && pushes[2].status == 200)
            #expect(String(decoding: pushes[2].body, as: UTF8.self) == #"{"aps":{"badge":0}}"#)
        }
    }
}
