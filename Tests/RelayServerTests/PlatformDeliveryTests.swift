import APNsMock
import FCMMock
import Foundation
import RelayCore
import RelayTestSupport
import Testing

/// Devices of both platforms behind one relay: each push goes to its device's service, rendered for it, and
/// each service's answers decide the delivery's and the token's fate.
@Suite struct PlatformDeliveryTests {
    /// A valid FCM registration token, distinct per index in its last 8 characters (what the API shows).
    static func fcmToken(_ index: Int) -> String {
        "dev:APA91b" + String(repeating: "Qz_-", count: 36) + String(format: "%08d", index)
    }

    /// One webhook to a room of iOS and Android devices: the mock APNs gets exactly the iOS tokens, the mock
    /// FCM exactly the Android ones, each with its platform's rendering of the same message.
    @Test func oneRoomOfBothPlatformsReachesEachServiceWithItsOwnDevices() async throws {
        try await withRelayAndMock { relay in
            let ios = [randomToken(), randomToken()]
            let android = [Self.fcmToken(1), Self.fcmToken(2)]
            try await relay.register(ios[0], user: "bob", rooms: ["general"])
            try await relay.register(android[0], user: "bob", rooms: ["general"], platform: "android")
            try await relay.register(ios[1], user: "carol", rooms: ["general"], platform: "ios")
            try await relay.register(android[1], user: "dave", rooms: ["general"], platform: "android")
            let answer = try await relay.webhook([
                "roomId": "general", "senderId": "alice", "text": "lunch?", "messageId": "m-1",
                "roomName": "General", "senderName": "Alice",
            ])
            #expect(answer.devices == 4)
            let view = try await relay.settled(answer.notificationId)
            #expect(view.counts.sent == 4)
            // Every delivery has a pushId; only the iOS ones call it an apns-id.
            for token in ios + android {
                let delivery = try #require(view.delivery(for: token))
                #expect(delivery.apnsId == (ios.contains(token) ? delivery.pushId : nil), "\(token.suffix(8))")
            }

            let apns = relay.mock.requests
            #expect(Set(apns.map(\.deviceToken)) == Set(ios) && apns.count == 2)
            for request in apns {
                let payload = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                #expect(payload["dittoChatRoomId"] as? String == "general")
                #expect(payload["dittoChatMessageId"] as? String == "m-1")
                let alert = (payload["aps"] as? [String: Any])?["alert"] as? [String: Any]
                #expect(alert?["title"] as? String == "General" && alert?["body"] as? String == "Alice: lunch?")
            }

            let fcm = try await relay.fcm.waitForRequests(count: 2)
            #expect(Set(fcm.compactMap(\.token)) == Set(android) && relay.fcm.requests.count == 2)
            for request in fcm {
                let body = try #require(
                    try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any]
                )
                let message = try #require(body["message"] as? [String: Any])
                #expect(
                    message["data"] as? [String: String] == ["dittoChatRoomId": "general", "dittoChatMessageId": "m-1"]
                )
                let notification = message["notification"] as? [String: String]
                #expect(notification == ["title": "General", "body": "Alice: lunch?"])
                let androidPart = try #require(message["android"] as? [String: Any])
                #expect(androidPart["priority"] as? String == "HIGH")
                #expect((androidPart["notification"] as? [String: String])?["tag"] == "dittochat-msg-m-1")
                let ttl = try #require(androidPart["ttl"] as? String)
                let seconds = try #require(Int(ttl.dropLast()))
                #expect(
                    ttl.hasSuffix("s") && (RelayTestBed.ttlSeconds - 60...RelayTestBed.ttlSeconds).contains(seconds)
                )
            }
            let devices = try await relay.devices(of: "bob")
            #expect(Set(devices.map(\.platform)) == ["ios", "android"])
            #expect(devices.first { $0.platform == "android" }?.environment == nil)
        }
    }

    /// Google's answers, each scripted for one token, and the fate the relay gives each: the delivery's status
    /// and reason, and whether the device stays live. (THIRD_PARTY_AUTH_ERROR pauses the app's Android sends
    /// instead: ProviderPauseTests.)
    @Test func fcmAnswersDecideEachDeliveryAndToken() async throws {
        let cases: [(rule: MockFCMScript.DeviceRule?, status: String, reason: String?, device: String)] = [
            (nil, "sent", nil, "live"),
            (.init(token: "", error: "UNREGISTERED"), "retired", "UNREGISTERED", "retired"),
            (.init(token: "", error: "SENDER_ID_MISMATCH"), "retired", "SENDER_ID_MISMATCH", "retired"),
            (
                .init(token: "", error: "INVALID_ARGUMENT", field: "message.token"), "retired", "INVALID_ARGUMENT",
                "retired"
            ),
            (.init(token: "", error: "INVALID_ARGUMENT", field: "message.data"), "failed", "INVALID_ARGUMENT", "live"),
            (.init(token: "", error: "QUOTA_EXCEEDED", retryAfter: 0, count: 1), "sent", nil, "live"),
            (.init(token: "", error: "UNAVAILABLE", count: 1), "sent", nil, "live"),
            (.init(token: "", error: "INTERNAL", count: 1), "sent", nil, "live"),
            (.init(token: "", error: "UNAVAILABLE"), "failed", "UNAVAILABLE", "live"),
        ]
        try await withRelayAndMock { relay in
            var rules: [MockFCMScript.DeviceRule] = []
            for (index, entry) in cases.enumerated() {
                let token = Self.fcmToken(100 + index)
                try await relay.register(token, user: "user\(index)", rooms: ["general"], platform: "android")
                if var rule = entry.rule {
                    rule.token = token
                    rules.append(rule)
                }
            }
            relay.fcm.updateScript { $0.devices = rules }
            let answer = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "hi"])
            #expect(answer.devices == cases.count)
            let view = try await relay.settled(answer.notificationId)
            for (index, entry) in cases.enumerated() {
                let token = Self.fcmToken(100 + index)
                let delivery = try #require(view.delivery(for: token), "case \(index)")
                #expect(delivery.status == entry.status, "case \(index): \(delivery)")
                if let reason = entry.reason { #expect(delivery.lastReason == reason, "case \(index)") }
                let device = try #require(try await relay.devices(of: "user\(index)").first)
                #expect(device.state == entry.device, "case \(index)")
            }
        }
    }

    /// An Android device is refused for an app without FCM settings, and an APNs environment for one; a
    /// token of the wrong alphabet for its platform is refused by that platform's rules.
    @Test func androidRegistrationsAreCheckedForTheirPlatform() async throws {
        try await withRelayAndMock(configure: { $0.apps[0].fcm = nil }) { relay in
            let refused = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": Self.fcmToken(1), "userId": "bob", "platform": "android"]
            )
            #expect(refused.status == 422 && refused.error?.code == "platform_not_configured")
        }
        try await withRelayAndMock { relay in
            for (body, code) in [
                (
                    ["token": Self.fcmToken(1), "userId": "bob", "platform": "android", "environment": "sandbox"],
                    "invalid_field"
                ),
                (["token": "not a token!", "userId": "bob", "platform": "android"], "invalid_device_token"),
                (["token": Self.fcmToken(1), "userId": "bob"], "invalid_device_token"),
                (["token": Self.fcmToken(1), "userId": "bob", "platform": "windows"], "invalid_field"),
            ] {
                let answer = try await relay.call("POST", "/v1/devices", json: body)
                #expect(answer.status == 400 && answer.error?.code == code, "\(body): \(answer.text)")
                #expect(!answer.text.contains(Self.fcmToken(1)), "a token is never echoed")
            }
            let iosOnly = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": Self.fcmToken(1), "userId": "bob"]
            )
            #expect(iosOnly.error?.message.hasSuffix("(an FCM registration token needs platform 'android')") == true)
            try await relay.register(Self.fcmToken(1), user: "bob", platform: "android")
            let phone = String(repeating: "ab", count: 32)
            try await relay.register(phone, user: "bob")
            let asAndroid = try await relay.call("DELETE", "/v1/devices/\(phone)?platform=android")
            #expect(asAndroid.status == 404 && asAndroid.error?.message == "No android device with that token")
            let deleted = try await relay.call("DELETE", "/v1/devices/\(Self.fcmToken(1))")
            #expect(deleted.status == 204)
        }
    }

    /// Production and sandbox pushes go to the endpoint set for each environment, as Apple's two hosts are:
    /// a second mock stands for production (it knows no provider key, so it refuses what it records, which
    /// pauses the app's production sends).
    @Test func eachAPNsEnvironmentGoesToItsOwnEndpoint() async throws {
        let tls = fixturesDirectory.appendingPathComponent("tls")
        let production = MockAPNsServer(
            configuration: MockAPNsConfiguration(
                tls: .init(
                    certificatePath: tls.appendingPathComponent("server.pem").path,
                    privateKeyPath: tls.appendingPathComponent("server.key").path
                ),
                environment: .production
            )
        )
        try production.start()
        defer { production.stop() }
        try await withRelayAndMock(configure: {
            $0.apps[0].apns.endpoints.production = .init(
                baseURL: "https://127.0.0.1:\(production.port)",
                caFile: tls.appendingPathComponent("ca.pem").path
            )
        }) { relay in
            let sandboxToken = randomToken(), productionToken = randomToken()
            try await relay.register(sandboxToken, user: "bob", rooms: ["general"], environment: "sandbox")
            try await relay.register(productionToken, user: "carol", rooms: ["general"], environment: "production")
            _ = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "hi"])
            _ = try await relay.mock.waitForRequests(count: 1, timeout: .seconds(60))
            _ = try await production.waitForRequests(count: 1, timeout: .seconds(60))
            #expect(relay.mock.requests.map(\.deviceToken) == [sandboxToken])
            #expect(production.requests.map(\.deviceToken) == [productionToken])
        }
    }

    /// A push to be delivered at once or never (`ttlSeconds` 0) is not sent again after a retryable answer:
    /// its delivery ends `failed` with reason `Expired`, and the service saw one request.
    @Test func aPushPastItsExpirationIsNotSentAgain() async throws {
        try await withRelayAndMock(configure: { $0.apps[0].ttlSeconds = 0 }) { relay in
            let token = Self.fcmToken(7)
            try await relay.register(token, user: "bob", rooms: ["general"], platform: "android")
            relay.fcm.updateScript { $0.devices = [.init(token: token, error: "UNAVAILABLE", count: 1)] }
            let answer = try await relay.webhook(["roomId": "general", "senderId": "alice", "text": "now or never"])
            let view = try await relay.settled(answer.notificationId)
            let delivery = try #require(view.delivery(for: token))
            #expect(delivery.status == "failed" && delivery.lastReason == "Expired", "\(delivery)")
            #expect(relay.fcm.requests.count == 1)
        }
    }
}
