import APNsMock
import FCMMock
import Foundation
import RelayCore
import RelayTestSupport
import Testing

/// The grace window and deletes end to end, on each store engine: a real relay, the mock APNs over HTTP/2
/// and the mock FCM. A read inside `apps[].pushDelaySeconds` cancels the push; a Ditto delete sends the
/// devices that showed the message a removal (iOS background push, Android data message).
@Suite struct GraceAndDeleteTests {
    enum Engine: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    /// Puts the relay on a new PostgreSQL database for `.postgres`.
    static func storage(_ engine: Engine) async throws -> (inout Configuration) -> Void {
        guard engine == .postgres else { return { _ in } }
        let url = try await PostgresCluster.shared().newDatabaseURL()
        return { $0.storage.postgres.url = url }
    }

    @Test(arguments: Engine.allCases) func aReadInsideTheWindowCancelsThePushAndOneAfterItDoesNot(
        engine: Engine
    ) async throws {
        let storage = try await Self.storage(engine)
        let time = ManualTimeSource(now: Date())
        try await withRelayAndMock(
            time: time,
            configure: {
                storage(&$0)
                $0.apps[0].pushDelaySeconds = 60
            }
        ) { relay in
            let bob = randomToken(), carol = randomToken()
            try await relay.register(bob, user: "bob", rooms: ["general"])
            try await relay.register(carol, user: "carol", rooms: ["general"])
            time.advance(by: .seconds(1))
            let answer = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "hi"])
            #expect(answer.devices == 2)
            // bob reads the room on another device within the window.
            let read = try await relay.call(
                "PUT",
                "/v1/rooms/general/read/bob",
                json: ["at": Timestamp.rfc3339(time.now)]
            )
            #expect(read.status == 200 || read.status == 204, "\(read.text)")
            time.advance(by: .seconds(61))
            let view = try await relay.settled(answer.notificationId)
            #expect(view.counts.cancelled == 1 && view.counts.sent == 1, "\(view.deliveries)")
            #expect(view.deliveries.contains { $0.status == "cancelled" && $0.lastReason == "read" })
            #expect(relay.requests(to: bob).isEmpty)
            #expect(relay.requests(to: carol).count == 1)
            let metrics = try await relay.adminCall("/metrics").text
            #expect(
                metrics.contains(
                    #"pushrelay_notifications_total{app="app0",platform="ios",outcome="cancelled",reason="read"} 1"#
                ),
                "\(metrics)"
            )
            // carol's push was answered 61 s after its acceptance, 1 s after its window: the latency is 1 s.
            #expect(
                metrics.contains(
                    #"pushrelay_accepted_to_answered_seconds_bucket{app="app0",platform="ios",le="10.0"} 1"#
                ),
                "\(metrics)"
            )
            // A message bob reads only after its window: sent.
            let later = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "again"])
            time.advance(by: .seconds(61))
            let sent = try await relay.settled(later.notificationId)
            #expect(sent.counts.sent == 2 && sent.counts.cancelled == 0, "\(sent.deliveries)")
            let again = try await relay.call(
                "PUT",
                "/v1/rooms/general/read/bob",
                json: ["at": Timestamp.rfc3339(time.now)]
            )
            #expect(again.status == 200 || again.status == 204)
            #expect(try await relay.notification(later.notificationId).counts.sent == 2)
            #expect(relay.requests(to: bob).count == 1)
        }
    }

    /// A Ditto message written before it arrived is due its grace window after it was written, as the stores
    /// make it due: the answer's latency counts from then (50 s old with a 60 s window: due 10 s after it
    /// arrived, answered 61 s after, so 51 s late).
    @Test func theLatencyOfADittoMessageCountsFromWhenItWasDue() async throws {
        let time = ManualTimeSource(now: Date())
        try await withRelayAndMock(
            time: time,
            configure: {
                DittoEventsTests.withDitto()(&$0)
                $0.apps[0].pushDelaySeconds = 60
            }
        ) { relay in
            try await relay.register(randomToken(), user: "bob")
            let applied = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: DittoEventsTests.events(messageId: "m-late", age: 50),
                key: DittoEventsTests.secret
            )
            #expect(applied.status == 200, "\(applied.text)")
            time.advance(by: .seconds(61))
            let view = try await relay.call("GET", "/v1/notifications?messageId=m-late")
            let settled = try await relay.settled(try view.decode(NotificationJSON.self).notificationId)
            #expect(settled.counts.sent == 1, "\(settled.deliveries)")
            let metrics = try await relay.adminCall("/metrics").text
            let bucket = #"pushrelay_accepted_to_answered_seconds_bucket{app="app0",platform="ios",le="#
            #expect(metrics.contains(bucket + #""30.0"} 0"#) && metrics.contains(bucket + #""60.0"} 1"#), "\(metrics)")
        }
    }

    /// An upsert of `collection` with `document`.
    static func upsert(_ txn: Int, _ collection: String, _ document: [String: Any]) -> [String: Any] {
        [
            "txnId": txn, "type": "documentChanged", "collection": collection,
            "change": ["method": "upsert", "oldValue": NSNull(), "newValue": document],
        ]
    }

    @Test(arguments: Engine.allCases) func aDittoDeleteRemovesTheNotificationFromTheDevicesThatShowedIt(
        engine: Engine
    ) async throws {
        let storage = try await Self.storage(engine)
        try await withRelayAndMock(configure: {
            storage(&$0)
            DittoEventsTests.withDitto()(&$0)
        }) { relay in
            let phone = randomToken(), android = PlatformDeliveryTests.fcmToken(1)
            try await relay.register(phone, user: "bob")
            try await relay.register(android, user: "bob", platform: "android")
            // An id over 50 bytes: its notification's identifier is the hashed form, which the removal names.
            let id = "6F1D3A52-0C7E-4B8A-9E2F-3A4B5C6D7E8F-reply-to-a-thread"
            let applied = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: DittoEventsTests.events(messageId: id),
                key: DittoEventsTests.secret
            )
            #expect(applied.status == 200, "\(applied.text)")
            let alert = try await relay.mock.waitForRequests(count: 1, timeout: .seconds(60))
            let shown = try #require(alert.first?.header("apns-collapse-id"))
            #expect(shown.hasPrefix(ChatMessage.hashedIdentifierPrefix))
            let fcmAlert = try await relay.fcm.waitForRequests(count: 1, timeout: .seconds(60))
            #expect(fcmAlert.first?.body.contains(#""tag":"\#(shown)""#) == true)
            let notification = try await relay.call("GET", "/v1/notifications?messageId=\(id)")
            let original = try notification.decode(NotificationJSON.self)
            _ = try await relay.settled(original.notificationId)
            // Another user's delete document of it changes nothing.
            let stranger = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: [
                    Self.upsert(
                        4,
                        "dm_messages",
                        [
                            "_id": "del-0", "roomId": "dm-1", "userId": "mallory", "text": "[deleted message]",
                            "createdOn": Timestamp.rfc3339(Date()), "isDeleted": true, "archivedMessage": id,
                        ]
                    )
                ],
                key: DittoEventsTests.secret
            )
            #expect(stranger.status == 200, "\(stranger.text)")
            #expect(try await relay.call("GET", "/v1/notifications?messageId=del-0").status == 404)
            #expect(try await relay.notification(original.notificationId).counts.sent == 2)
            // alice deletes it in the JS app: the original archived, a delete document naming it.
            let deleted = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: [
                    Self.upsert(
                        5,
                        "dm_messages",
                        [
                            "_id": "del-1", "roomId": "dm-1", "userId": "alice", "text": "[deleted message]",
                            "createdOn": Timestamp.rfc3339(Date()), "isDeleted": true, "archivedMessage": id,
                        ]
                    )
                ],
                key: DittoEventsTests.secret
            )
            #expect(deleted.status == 200, "\(deleted.text)")
            let requests = try await relay.mock.waitForRequests(count: 2, timeout: .seconds(60))
            let removal = try #require(requests.last)
            #expect(removal.status == 200 && removal.deviceToken == phone)
            #expect(removal.header("apns-push-type") == "background" && removal.header("apns-priority") == "5")
            #expect(removal.header("apns-collapse-id") == nil)
            #expect(
                String(decoding: removal.body, as: UTF8.self)
                    == #"{"aps":{"content-available":1},"dittoChatRemoveMessageId":"\#(id)","dittoChatRemoveNotificationId":"\#(shown)"}"#
            )
            let messages = try await relay.fcm.waitForRequests(count: 2, timeout: .seconds(60))
            let data = try #require(messages.sorted { $0.time < $1.time }.last)
            let message =
                try #require(
                    try JSONSerialization.jsonObject(with: Data(data.body.utf8)) as? [String: Any]
                )["message"] as? [String: Any]
            #expect(message?["notification"] == nil)
            #expect(
                message?["data"] as? [String: String]
                    == ["dittoChatRemoveMessageId": id, "dittoChatRemoveNotificationId": shown]
            )
            // The removal is a notification of its own, named by the delete document.
            let view = try await relay.call("GET", "/v1/notifications?messageId=del-1")
            #expect(view.status == 200, "\(view.text)")
            let removalView = try view.decode(NotificationJSON.self)
            #expect(try await relay.settled(removalView.notificationId).counts.sent == 2)
            // A second delete document of the same message removes nothing again.
            let again = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: [
                    Self.upsert(
                        6,
                        "dm_messages",
                        [
                            "_id": "del-2", "roomId": "dm-1", "userId": "alice", "text": "[deleted message]",
                            "createdOn": Timestamp.rfc3339(Date()), "isDeleted": true, "archivedMessage": id,
                        ]
                    )
                ],
                key: DittoEventsTests.secret
            )
            #expect(again.status == 200, "\(again.text)")
            #expect(try await relay.call("GET", "/v1/notifications?messageId=del-2").status == 404)
        }
    }
}
