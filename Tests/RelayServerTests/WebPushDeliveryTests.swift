import APNsMock
import FCMMock
import Foundation
import RelayCore
import RelayTestSupport
import Testing
import WebPushCore
import WebPushMock

/// Browsers beside phones behind one relay: a web device's push reaches its push service encrypted for it and
/// signed with the app's VAPID key (the mock push service decrypts and verifies each one), and the push
/// service's answers decide each delivery's and subscription's fate.
@Suite struct WebPushDeliveryTests {
    /// A mock push service over TLS, made for one test, and the `webPush` settings that reach it with a new
    /// VAPID key written into `directory`.
    struct WebPushBed {
        var mock: MockWebPushServer
        var settings: Configuration.WebPush
        var vapidKey: VAPIDKey
    }

    static func withWebPush(
        script: MockWebPushScript = MockWebPushScript(),
        _ body: (WebPushBed) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webpush-e2e-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = fixturesDirectory.appendingPathComponent("tls")
        let mock = MockWebPushServer(
            configuration: MockWebPushConfiguration(
                tls: .init(
                    certificatePath: tls.appendingPathComponent("server.pem").path,
                    privateKeyPath: tls.appendingPathComponent("server.key").path
                ),
                script: script
            )
        )
        try mock.start()
        defer { mock.stop() }
        let key = try VAPIDKey.generate()
        let keyFile = directory.appendingPathComponent("vapid.pem")
        try Data(key.privateKeyPEM.utf8).write(to: keyFile)
        let settings = Configuration.WebPush(
            vapidKeyFile: keyFile.path,
            subject: "mailto:ops@example.com",
            mock: .init(baseURL: mock.baseURL, caFile: tls.appendingPathComponent("ca.pem").path)
        )
        try await body(WebPushBed(mock: mock, settings: settings, vapidKey: key))
    }

    /// Registers `subscription` as a web device of `user` in `rooms`; returns its device token.
    @discardableResult
    static func register(
        _ relay: RelayHarness,
        _ subscription: WebPushSubscription,
        user: String,
        rooms: [String] = ["general"]
    ) async throws -> String {
        let json: [String: Any] = [
            "endpoint": subscription.endpoint, "expirationTime": NSNull(),
            "keys": ["p256dh": subscription.keys.p256dh, "auth": subscription.keys.auth],
        ]
        let answer = try await relay.call(
            "POST",
            "/v1/devices",
            json: ["platform": "web", "subscription": json, "userId": user, "rooms": rooms]
        )
        try #require([200, 201].contains(answer.status), "\(answer.text)")
        let view = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        return try #require(view["token"] as? String)
    }

    /// One message to a room of iPhones, Android phones and browsers: each mock gets exactly its own devices,
    /// and each browser's push decrypts with its subscription's keys into the message's texts and ids, signed
    /// by the app's VAPID key for the push service's origin.
    @Test func oneRoomOfThreePlatformsReachesEachServiceWithItsOwnDevices() async throws {
        try await Self.withWebPush { web in
            try await withRelayAndMock(configure: { $0.apps[0].webPush = web.settings }) { relay in
                let ios = randomToken()
                let android = PlatformDeliveryTests.fcmToken(7)
                let browsers = [try web.mock.newSubscription(), try web.mock.newSubscription()]
                try await relay.register(ios, user: "bob", rooms: ["general"])
                try await relay.register(android, user: "carol", rooms: ["general"], platform: "android")
                let webTokens = [
                    try await Self.register(relay, browsers[0], user: "bob"),
                    try await Self.register(relay, browsers[1], user: "dave"),
                ]
                let answer = try await relay.webhook([
                    "roomId": "general", "senderId": "alice", "text": "lunch?", "messageId": "m-1",
                    "roomName": "General", "senderName": "Alice",
                ])
                #expect(answer.devices == 4)
                let view = try await relay.settled(answer.notificationId)
                #expect(view.counts.sent == 4)
                for token in webTokens {
                    let delivery = try #require(view.delivery(for: token))
                    #expect(delivery.status == "sent" && delivery.apnsId == nil)
                }
                #expect(relay.mock.requests.map(\.deviceToken) == [ios])
                #expect(try await relay.fcm.waitForRequests(count: 1).compactMap(\.token) == [android])

                let pushes = try await web.mock.waitForRequests(count: 2)
                let ids = Set(browsers.compactMap { MockWebPushServer.endpointId(of: $0.endpoint) })
                #expect(Set(pushes.map(\.endpointId)) == ids && web.mock.requests.count == 2)
                let origin = try PushEndpoint(validating: web.mock.baseURL, allowingHTTP: true).origin
                for push in pushes {
                    #expect(push.status == 201 && push.shape == "plain")
                    #expect(push.vapidAudience == origin && push.vapidSubject == "mailto:ops@example.com")
                    #expect(push.vapidKey == web.vapidKey.publicKeyBase64URL)
                    #expect(push.urgency == "high" && push.topic == Topic(messageId: "m-1").value)
                    let ttl = try #require(push.ttl)
                    #expect((RelayTestBed.ttlSeconds - 60...RelayTestBed.ttlSeconds).contains(ttl))
                    let payload = try #require(push.payloadText)
                    let message = try #require(
                        try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: String]
                    )
                    #expect(
                        message == [
                            "title": "General", "body": "Alice: lunch?", "dittoChatRoomId": "general",
                            "dittoChatMessageId": "m-1",
                        ]
                    )
                }
                let devices = try await relay.devices(of: "bob")
                #expect(Set(devices.map(\.platform)) == ["ios", "web"])
            }
        }
    }

    /// A push service's answers, each scripted for one subscription, and the fate each gives: 404 and 410
    /// retire the subscription, 413, 400, 401 and 403 fail the delivery, 429 and 5xx are retried (after
    /// `Retry-After`) and then sent.
    @Test func pushServiceAnswersDecideEachDeliveryAndSubscription() async throws {
        let cases: [(status: Int?, retryAfter: Int?, delivery: String, device: String)] = [
            (nil, nil, "sent", "live"),
            (404, nil, "retired", "retired"),
            (410, nil, "retired", "retired"),
            (413, nil, "failed", "live"),
            (400, nil, "failed", "live"),
            (401, nil, "failed", "live"),
            (403, nil, "failed", "live"),
            (429, 1, "sent", "live"),
            (500, nil, "sent", "live"),
            (503, 1, "sent", "live"),
        ]
        try await Self.withWebPush { web in
            try await withRelayAndMock(configure: { $0.apps[0].webPush = web.settings }) { relay in
                var rules: [MockWebPushScript.EndpointRule] = []
                var tokens: [String] = []
                for (index, entry) in cases.enumerated() {
                    let subscription = try web.mock.newSubscription()
                    tokens.append(try await Self.register(relay, subscription, user: "user\(index)"))
                    guard let status = entry.status else { continue }
                    let id = try #require(MockWebPushServer.endpointId(of: subscription.endpoint))
                    // A retried answer is given once; the retry is then accepted.
                    rules.append(.init(id: id, status: status, retryAfter: entry.retryAfter, count: 1))
                }
                web.mock.updateScript { $0.endpoints = rules }
                let answer = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "hi"])
                #expect(answer.devices == cases.count)
                let view = try await relay.settled(answer.notificationId)
                for (index, entry) in cases.enumerated() {
                    let delivery = try #require(view.delivery(for: tokens[index]), "case \(index)")
                    #expect(delivery.status == entry.delivery, "case \(entry.status ?? 201): \(delivery)")
                    let device = try #require(try await relay.devices(of: "user\(index)").first)
                    #expect(device.state == entry.device, "case \(entry.status ?? 201)")
                }
            }
        }
    }

    /// A subscription the push service says is gone is a dead token (its `web-` token, platform web), gets no
    /// delivery of the next message, and comes back when the browser registers it again.
    @Test func aGoneSubscriptionIsRetiredUntilRegisteredAgain() async throws {
        try await Self.withWebPush { web in
            try await withRelayAndMock(configure: { $0.apps[0].webPush = web.settings }) { relay in
                let subscription = try web.mock.newSubscription()
                let id = try #require(MockWebPushServer.endpointId(of: subscription.endpoint))
                web.mock.updateScript { $0.endpoints = [.init(id: id, status: 410, count: 1)] }
                let token = try await Self.register(relay, subscription, user: "bob")
                let first = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "one"])
                #expect(try await relay.settled(first.notificationId).counts.retired == 1)
                let dead = try await relay.call("GET", "/v1/dead-tokens")
                let list = try #require(
                    (try JSONSerialization.jsonObject(with: dead.body) as? [String: Any])?["deadTokens"]
                        as? [[String: Any]],
                    "\(dead.text)"
                )
                let entry = try #require(list.first { $0["token"] as? String == token })
                #expect(entry["platform"] as? String == "web" && entry["environment"] == nil)
                #expect(!dead.text.contains(subscription.keys.auth) && !dead.text.contains(id))

                let second = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "two"])
                #expect(second.devices == 0)

                try await Self.register(relay, subscription, user: "bob")
                let third = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "three"])
                #expect(third.devices == 1)
                #expect(try await relay.settled(third.notificationId).counts.sent == 1)
            }
        }
    }

    /// Refusals (403) of three distinct subscriptions of one push service, with no push accepted there in
    /// between, pause that origin: the next delivery to it is held without an attempt (not sent, `pending`,
    /// `OriginPaused`), while the other platforms' go on.
    @Test func refusalsOfSeveralSubscriptionsHoldTheOriginsNextPushWithoutAnAttempt() async throws {
        try await Self.withWebPush { web in
            try await withRelayAndMock(configure: { $0.apps[0].webPush = web.settings }) { relay in
                var rules: [MockWebPushScript.EndpointRule] = []
                for index in 0..<3 {
                    let subscription = try web.mock.newSubscription()
                    let id = try #require(MockWebPushServer.endpointId(of: subscription.endpoint))
                    rules.append(.init(id: id, status: 403))
                    try await Self.register(relay, subscription, user: "user\(index)", rooms: ["refusing"])
                }
                web.mock.updateScript { $0.endpoints = rules }
                let refused = try await relay.webhook(["roomId": "refusing", "senderId": "alice", "text": "one"])
                #expect(try await relay.settled(refused.notificationId).counts.failed == 3)

                let held = try await Self.register(relay, try web.mock.newSubscription(), user: "bob")
                let phone = randomToken()
                try await relay.register(phone, user: "carol", rooms: ["general"])
                let answer = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "two"])
                let deadline = ContinuousClock.now + .seconds(90)
                var view = try await relay.notification(answer.notificationId)
                while view.delivery(for: held)?.lastReason != "OriginPaused" || view.counts.sent < 1,
                    ContinuousClock.now < deadline
                {
                    try await Task.sleep(for: .milliseconds(100))
                    view = try await relay.notification(answer.notificationId)
                }
                let delivery = try #require(view.delivery(for: held))
                #expect(delivery.status == "pending" && delivery.lastReason == "OriginPaused")
                #expect(delivery.attempts == 0, "a held push spends no attempt")
                #expect(view.delivery(for: phone)?.status == "sent")
                #expect(web.mock.requests.count == 3, "the paused origin was not contacted again")
            }
        }
    }
}
