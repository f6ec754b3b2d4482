import APNsMock
import FCMMock
import Foundation
import RelayCore
import Testing

/// Wake mode end to end (`apps[].apns.mode`, `apps[].fcm.mode`, `apps[].wakeBudgetPerHour`): a real relay on
/// a SQLite file, the mock APNs over HTTP/2 and the mock FCM. Within a device's hourly budget a message with
/// a message id wakes the app silently; beyond it, and without a message id, the device gets the alert.
@Suite struct WakeModeTests {
    /// The payload's JSON object.
    static func object(_ body: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    /// Posts a message to room `general` (with `messageId` when given) and waits until it is settled.
    static func send(_ relay: RelayHarness, messageId: String?, text: String = "hi") async throws {
        var body: [String: Any] = ["roomId": "general", "senderId": "alice", "text": text, "roomName": "General"]
        body["messageId"] = messageId
        let answer = try await relay.webhook(body)
        let view = try await relay.settled(answer.notificationId)
        #expect(view.counts.sent == answer.devices, "\(view.deliveries)")
    }

    /// What the mock APNs received for `token`: each request's push type, and the message id of its payload.
    static func pushes(_ relay: RelayHarness, to token: String) throws -> [(type: String?, messageId: String?)] {
        try relay.requests(to: token).map {
            ($0.header("apns-push-type"), try object($0.body)["dittoChatMessageId"] as? String)
        }
    }

    @Test func iosWakesWithinEachDevicesBudgetPerClockHourThenAlerts() async throws {
        // A minute before a clock hour ends (the mock takes a provider token issued in its future).
        let nextHour = (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600 + 3600
        let time = ManualTimeSource(now: Date(timeIntervalSince1970: nextHour - 60))
        try await withRelayAndMock(
            time: time,
            configure: {
                $0.apps[0].apns.mode = .wake
                $0.apps[0].wakeBudgetPerHour = 2
            }
        ) { relay in
            let bob = randomToken(), carol = randomToken()
            try await relay.register(bob, user: "bob", rooms: ["general"])
            try await Self.send(relay, messageId: "m-1")
            try await relay.register(carol, user: "carol", rooms: ["general"])
            try await Self.send(relay, messageId: "m-2")
            try await Self.send(relay, messageId: "m-3")
            // Bob's budget of 2 is spent by m-1 and m-2; carol's, a budget of her own, by m-2 and m-3.
            #expect(
                try Self.pushes(relay, to: bob).map { "\($0.type ?? "-") \($0.messageId ?? "-")" }
                    == ["background m-1", "background m-2", "alert m-3"]
            )
            #expect(
                try Self.pushes(relay, to: carol).map { "\($0.type ?? "-") \($0.messageId ?? "-")" }
                    == ["background m-2", "background m-3"]
            )

            // A wake push as Apple wants it: background at priority 5, aps only content-available, the keys.
            let wake = try #require(relay.requests(to: bob).first)
            #expect(wake.status == 200)
            #expect(wake.header("apns-priority") == "5" && wake.header("apns-topic") == relay.app.topic)
            #expect(wake.header("apns-collapse-id") == nil)
            #expect(
                String(decoding: wake.body, as: UTF8.self)
                    == #"{"aps":{"content-available":1},"dittoChatMessageId":"m-1","dittoChatRoomId":"general"}"#
            )
            // Beyond the budget, the alert as in alert mode.
            let alert = try #require(relay.requests(to: bob).last)
            #expect(alert.header("apns-priority") == "10" && alert.header("apns-collapse-id") == "dittochat-msg-m-3")
            let aps = try #require(try Self.object(alert.body)["aps"] as? [String: Any])
            #expect(
                (aps["alert"] as? [String: Any])?["body"] as? String == "hi" && aps["sound"] as? String == "default"
            )

            // The next clock hour starts each budget again. A message without an id cannot wake: an alert,
            // which takes nothing from the budget.
            time.advance(by: .seconds(120))
            try await Self.send(relay, messageId: nil, text: "no id")
            try await Self.send(relay, messageId: "m-4")
            try await Self.send(relay, messageId: "m-5")
            try await Self.send(relay, messageId: "m-6")
            #expect(
                try Self.pushes(relay, to: bob).dropFirst(3).map { "\($0.type ?? "-") \($0.messageId ?? "-")" }
                    == ["alert -", "background m-4", "background m-5", "alert m-6"]
            )
            #expect(relay.mock.requests.allSatisfy { $0.status == 200 })
            // Bob woke 4 times and got 2 alerts over budget; carol woke 4 times and got 1 (m-6).
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_wake_decisions_total{app="app0",platform="ios",decision="wake"} 8"#))
            #expect(
                metrics.contains(#"pushrelay_wake_decisions_total{app="app0",platform="ios",decision="over_budget"} 3"#)
            )
        }
    }

    @Test func androidWakesWithDataOnlyMessagesAtHighPriority() async throws {
        let time = ManualTimeSource(now: Date())
        try await withRelayAndMock(
            time: time,
            configure: {
                $0.apps[0].fcm?.mode = .wake
                $0.apps[0].wakeBudgetPerHour = 1
            }
        ) { relay in
            let android = PlatformDeliveryTests.fcmToken(1), iphone = randomToken()
            try await relay.register(android, user: "bob", rooms: ["general"], platform: "android")
            try await relay.register(iphone, user: "bob", rooms: ["general"])
            try await Self.send(relay, messageId: "m-1")
            try await Self.send(relay, messageId: "m-2")
            let messages = try await relay.fcm.waitForRequests(count: 2, timeout: .seconds(60))
            let bodies = try messages.sorted { $0.time < $1.time }.map {
                try #require(try Self.object(Data($0.body.utf8))["message"] as? [String: Any])
            }
            // Within the budget: data only (no notification, no tag), HIGH, the Ditto keys.
            let wake = try #require(bodies.first)
            #expect(wake["notification"] == nil)
            #expect(wake["data"] as? [String: String] == ["dittoChatRoomId": "general", "dittoChatMessageId": "m-1"])
            let androidPart = try #require(wake["android"] as? [String: Any])
            #expect(androidPart["priority"] as? String == "HIGH" && androidPart["notification"] == nil)
            // Beyond it, the notification message.
            let alert = try #require(bodies.last)
            #expect((alert["notification"] as? [String: String])?["body"] == "hi")
            #expect((alert["data"] as? [String: String])?["dittoChatMessageId"] == "m-2")
            // The app's iOS side is in alert mode: both messages are alerts there.
            #expect(try Self.pushes(relay, to: iphone).map(\.type) == ["alert", "alert"])
        }
    }

    @Test func aDittoStreamMessageWakesWithItsDocumentId() async throws {
        try await withRelayAndMock(configure: {
            DittoEventsTests.withDitto()(&$0)
            $0.apps[0].apns.mode = .wake
        }) { relay in
            let phone = randomToken()
            try await relay.register(phone, user: "bob")
            let id = "6F1D3A52-0C7E-4B8A-9E2F-3A4B5C6D7E8F"
            let applied = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: DittoEventsTests.events(messageId: id),
                key: DittoEventsTests.secret
            )
            #expect(applied.status == 200, "\(applied.text)")
            let request = try #require(try await relay.mock.waitForRequests(count: 1, timeout: .seconds(60)).first)
            #expect(request.deviceToken == phone && request.header("apns-push-type") == "background")
            let payload = try Self.object(request.body)
            #expect(payload["dittoChatMessageId"] as? String == id && payload["dittoChatRoomId"] as? String == "dm-1")
            #expect(payload["aps"] as? [String: Int] == ["content-available": 1])
        }
    }
}
