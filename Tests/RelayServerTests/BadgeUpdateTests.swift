import APNsMock
import FCMMock
import Foundation
import RelayCore
import RelayTestSupport
import Testing

/// Read elsewhere end to end (`apps[].badge`, `apps[].badgeUpdateSeconds`): a real relay on a SQLite file,
/// the mock APNs over HTTP/2 and the mock FCM. A read that lowers a user's total sends each of its devices a
/// badge update (iOS: an alert push at priority 5 holding only the badge; Android: a data message), at most
/// one per device per window, the later reads coalescing into the next with the count at its sending.
@Suite struct BadgeUpdateTests {
    typealias U = UnreadTests

    /// The requests to `token` that are badge updates (priority 5), oldest first.
    static func updates(_ relay: RelayHarness, to token: String) -> [RecordedRequest] {
        relay.requests(to: token).filter { $0.header("apns-priority") == "5" }
    }

    /// The FCM messages sent at NORMAL priority (badge updates), oldest first, as JSON objects.
    static func fcmUpdates(_ messages: [RecordedMessage]) throws -> [[String: Any]] {
        try messages.sorted { $0.time < $1.time }.compactMap { recorded in
            let body = try #require(try JSONSerialization.jsonObject(with: Data(recorded.body.utf8)) as? [String: Any])
            let message = try #require(body["message"] as? [String: Any])
            let android = try #require(message["android"] as? [String: Any])
            return android["priority"] as? String == "NORMAL" ? message : nil
        }
    }

    @Test func readsElsewhereSendOneCoalescedBadgeUpdatePerDeviceAndWindow() async throws {
        let time = ManualTimeSource(now: Date())
        let start = time.now
        try await withRelayAndMock(
            time: time,
            configure: {
                U.withBadge(&$0)
                $0.apps[0].badgeUpdateSeconds = 10
            }
        ) { relay in
            let phone = randomToken(), android = PlatformDeliveryTests.fcmToken(1)
            try await relay.register(phone, user: "bob", rooms: ["general"])
            try await relay.register(android, user: "bob", rooms: ["general"], platform: "android")
            try await relay.register(randomToken(), user: "alice", rooms: ["general"])
            // alice's messages at start + 1, 2 and 3 s.
            for n in 1...3 {
                time.advance(by: .seconds(1))
                try await U.message(relay, "hi \(n)")
            }
            // bob reads the first on another device: each of his devices gets the count, 2.
            _ = try await U.markRead(relay, "bob", at: start.addingTimeInterval(1))
            // bob's phone: three alerts and the update; his Android device the same.
            var pushes = try await relay.mock.waitForRequests(count: 4, timeout: .seconds(60))
            var fcm = try await relay.fcm.waitForRequests(count: 4, timeout: .seconds(60))
            #expect(pushes.filter { $0.header("apns-priority") == "5" }.count == 1)
            let update = try #require(Self.updates(relay, to: phone).first)
            #expect(update.status == 200, "\(update.reason ?? "")")
            #expect(update.header("apns-push-type") == "alert" && update.header("apns-topic") == relay.app.topic)
            #expect(update.header("apns-collapse-id") == nil)
            #expect(String(decoding: update.body, as: UTF8.self) == #"{"aps":{"badge":2}}"#)
            var data = try Self.fcmUpdates(fcm)
            #expect(data.count == 1)
            #expect(data.first?["data"] as? [String: String] == ["dittoChatUnread": "2"])
            #expect(data.first?["notification"] == nil)

            // Two more reads within the window coalesce into ONE update, sent once the window is over,
            // with the count of then (0).
            _ = try await U.markRead(relay, "bob", at: start.addingTimeInterval(2))
            _ = try await U.markRead(relay, "bob", at: start.addingTimeInterval(3))
            time.advance(by: .seconds(10))
            pushes = try await relay.mock.waitForRequests(count: 5, timeout: .seconds(60))
            fcm = try await relay.fcm.waitForRequests(count: 5, timeout: .seconds(60))
            #expect(
                Self.updates(relay, to: phone).map { String(decoding: $0.body, as: UTF8.self) } == [
                    #"{"aps":{"badge":2}}"#, #"{"aps":{"badge":0}}"#,
                ]
            )
            data = try Self.fcmUpdates(fcm)
            #expect(
                data.map { $0["data"] as? [String: String] } == [["dittoChatUnread": "2"], ["dittoChatUnread": "0"]]
            )
            // Only bob's devices: alice read nothing.
            #expect(pushes.filter { $0.header("apns-priority") == "5" }.count == 2)
            // The mock has the last update before the relay counts its answer: wait for the count.
            try await waitUntil("both platforms' badge updates counted") {
                let metrics = try await relay.adminCall("/metrics").text
                return metrics.contains(#"pushrelay_badge_updates_total{app="app0",platform="ios",outcome="sent"} 2"#)
                    && metrics.contains(
                        #"pushrelay_badge_updates_total{app="app0",platform="android",outcome="sent"} 2"#
                    )
            }
        }
    }

    @Test func anUnregisteredAnswerToABadgeUpdateRetiresTheDevice() async throws {
        let phone = randomToken()
        let script = MockScript(devices: [.init(token: phone, status: 410, reason: "Unregistered")])
        try await withRelayAndMock(script: script, configure: U.withBadge) { relay in
            // bob is a member before alice writes, and registers his phone after: it got no alert.
            try await relay.join("general", "bob")
            try await relay.register(randomToken(), user: "alice", rooms: ["general"])
            try await U.message(relay, "hi")
            try await relay.register(phone, user: "bob")
            _ = try await U.markRead(relay, "bob", at: Date())
            let pushes = try await relay.mock.waitForRequests(count: 1, timeout: .seconds(60))
            #expect(pushes.first?.status == 410 && pushes.first?.header("apns-priority") == "5")
            let deadline = ContinuousClock.now + .seconds(60)
            while try await relay.devices(of: "bob").first?.state != "retired", ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await relay.devices(of: "bob").map(\.state) == ["retired"])
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_badge_updates_total{app="app0",platform="ios",outcome="retired"} 1"#))
        }
    }

    @Test func withoutBadgesAReadSendsNothing() async throws {
        try await withRelayAndMock { relay in
            let phone = randomToken()
            try await relay.register(phone, user: "bob", rooms: ["general"])
            try await relay.register(randomToken(), user: "alice", rooms: ["general"])
            try await U.message(relay, "one")
            _ = try await U.markRead(relay, "bob", at: Date())
            try await U.message(relay, "two")
            #expect(relay.requests(to: phone).map { $0.header("apns-priority") } == ["10", "10"])
            let attempts = try await relay.adminCall("/metrics").text.split(separator: "\n")
                .filter { $0.hasPrefix("pushrelay_badge_updates_total{") }
            #expect(!attempts.isEmpty && attempts.allSatisfy { $0.hasSuffix(" 0") })
        }
    }

    /// The bodies of the badge updates (alert pushes at priority 5; removals are background pushes) to
    /// `token`, oldest first.
    static func badgeBodies(_ relay: RelayHarness, to token: String) -> [String] {
        updates(relay, to: token).filter { $0.header("apns-push-type") == "alert" }.map {
            String(decoding: $0.body, as: UTF8.self)
        }
    }

    @Test func mutingAndLeavingLowerTheBadgeLikeARead() async throws {
        let time = ManualTimeSource(now: Date())
        try await withRelayAndMock(
            time: time,
            configure: {
                U.withBadge(&$0)
                $0.apps[0].badgeUpdateSeconds = 10
            }
        ) { relay in
            let phone = randomToken()
            let rooms = ["general", "random"]
            try await relay.register(phone, user: "bob", rooms: rooms)
            try await relay.register(randomToken(), user: "alice", rooms: rooms)
            time.advance(by: .seconds(1))
            for (n, room) in ["general", "general", "random"].enumerated() {
                let answer = try await relay.webhook(["roomId": room, "senderId": "alice", "text": "hi \(n)"])
                _ = try await relay.settled(answer.notificationId, timeout: .seconds(60))
            }
            // bob mutes general, where 2 of his 3 are: his devices get the lower count.
            var response = try await relay.call("PUT", "/v1/rooms/general/members/bob", json: ["notify": "none"])
            #expect(response.status == 204, "\(response.text)")
            _ = try await relay.mock.waitForRequests(count: 4, timeout: .seconds(60))
            #expect(Self.badgeBodies(relay, to: phone) == [#"{"aps":{"badge":1}}"#])
            // He leaves random: 0, once the window is over (a close that removes him does the same,
            // BadgeUpdateStoreTests).
            response = try await relay.call("DELETE", "/v1/rooms/random/members/bob")
            #expect(response.status == 204, "\(response.text)")
            time.advance(by: .seconds(10))
            _ = try await relay.mock.waitForRequests(count: 5, timeout: .seconds(60))
            #expect(Self.badgeBodies(relay, to: phone) == [#"{"aps":{"badge":1}}"#, #"{"aps":{"badge":0}}"#])
        }
    }

    /// The JS SDK deletes by archiving the original beside the delete document; the two may come in either
    /// order (`archivedFirst`), and the counts go down with whichever comes first.
    @Test(arguments: [false, true]) func aDittoDeleteLowersTheBadgeOfThoseItCountedFor(
        archivedFirst: Bool
    )
        async throws
    {
        try await withRelayAndMock(configure: {
            DittoEventsTests.withDitto()(&$0)
            U.withBadge(&$0)
        }) { relay in
            let phone = randomToken(), carolsPhone = randomToken()
            try await relay.register(phone, user: "bob")
            try await relay.register(carolsPhone, user: "carol")
            let before = Timestamp.rfc3339(Date().addingTimeInterval(-3600))
            func message(_ txn: Int, _ id: String, extra: [String: Any] = [:]) -> [String: Any] {
                GraceAndDeleteTests.upsert(
                    txn,
                    "messages",
                    [
                        "_id": id, "roomId": "room-1", "userId": "alice", "text": "hi",
                        "createdOn": Timestamp.rfc3339(Date().addingTimeInterval(-1)),
                        "mentions": [["userId": "carol", "startIndex": 0, "endIndex": 1]],
                    ].merging(extra) { $1 }
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
            // bob has a read position in room-1; carol, not subscribed, is mentioned (no position: her total
            // is 0).
            try await post([
                GraceAndDeleteTests.upsert(1, "rooms", ["_id": "room-1", "name": "Team"]),
                GraceAndDeleteTests.upsert(2, "users", ["_id": "bob", "subscriptions": ["room-1": before]]),
                GraceAndDeleteTests.upsert(3, "users", ["_id": "carol", "subscriptions": [String: Any]()]),
                message(4, "m-1"),
            ])
            _ = try await relay.mock.waitForRequests(count: 2, timeout: .seconds(60))
            try await post([message(5, "m-2")])
            _ = try await relay.mock.waitForRequests(count: 4, timeout: .seconds(60))
            // Recorded as sent before the delete (a push still in flight at the delete gets no removal).
            let sent = try await relay.call("GET", "/v1/notifications?messageId=m-2").decode(NotificationJSON.self)
            _ = try await relay.settled(sent.notificationId)
            // carol's total is 0: her alerts carry no badge rather than clear her icon.
            #expect(try relay.requests(to: carolsPhone).map(U.badge) == [nil, nil])
            #expect(try relay.requests(to: phone).map(U.badge) == [1, 2])
            // alice deletes m-2: bob's count goes down to 1; carol's does not move.
            let delete = message(
                7,
                "d-1",
                extra: ["isDeleted": true, "archivedMessage": "m-2", "text": "[deleted message]"]
            )
            try await post(archivedFirst ? [message(6, "m-2", extra: ["isArchived": true]), delete] : [delete])
            _ = try await relay.mock.waitForRequests(count: 7, timeout: .seconds(60))
            #expect(Self.badgeBodies(relay, to: phone) == [#"{"aps":{"badge":1}}"#])
            #expect(Self.badgeBodies(relay, to: carolsPhone).isEmpty)
        }
    }
}
