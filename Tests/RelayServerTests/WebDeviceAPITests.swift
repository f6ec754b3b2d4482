import Foundation
import RelayCore
import RelayCrypto
import Testing
import WebPushCore

/// `POST /v1/devices` with `platform: web`: a browser's subscription, checked by WebPushCore, registers a
/// device known by its derived token; the keys and the endpoint are stored, never shown.
@Suite struct WebDeviceAPITests {
    /// An endpoint in the shape Chrome's push service gives.
    static let endpoint =
        "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bHqjZxM0VImWWqDRN7U0a3AycjUf4O-byuxb_wJsKRaKvV_iKw56s16"
    static let identity = PushEndpoint.deviceToken(endpoint: endpoint)

    /// Web Push settings for the first app (no key: the development setup).
    static func withWebPush(_ configuration: inout Configuration) {
        configuration.apps[0].webPush = .init()
    }

    /// The subscription JSON a browser's `PushSubscription.toJSON()` gives for `keys`.
    static func subscription(
        _ keys: SubscriptionKeyPair,
        endpoint: String = endpoint,
        expirationTime: Any = NSNull()
    ) -> [String: Any] {
        let subscription = keys.subscription(endpoint: endpoint)
        return [
            "endpoint": endpoint, "expirationTime": expirationTime,
            "keys": ["p256dh": subscription.keys.p256dh, "auth": subscription.keys.auth],
        ]
    }

    static func registration(_ subscription: Any, user: String? = "bob") -> [String: Any] {
        var body: [String: Any] = ["platform": "web", "subscription": subscription, "rooms": ["general"]]
        if let user { body["userId"] = user }
        return body
    }

    /// The JSON object of an answer.
    static func object(_ response: APIResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any], "\(response.text)")
    }

    /// What the relay's store keeps of the device `identity`.
    static func stored(_ relay: RelayHarness, _ identity: String = identity) async throws -> String? {
        let token = PushToken.web(try WebPushToken(parsing: identity))
        return try await relay.relay.store.device(appId: relay.app.id, token: token)?.token.address
    }

    @Test func aBrowserSubscriptionRegistersAWebDeviceShownByItsTokenOnly() async throws {
        try await withRelayAndMock(configure: Self.withWebPush) { relay in
            let keys = try SubscriptionKeyPair.generate()
            let subscription = keys.subscription(endpoint: Self.endpoint)
            let created = try await relay.call("POST", "/v1/devices", json: Self.registration(Self.subscription(keys)))
            #expect(created.status == 201, "\(created.text)")
            let view = try Self.object(created)
            #expect(view["token"] as? String == Self.identity && view["platform"] as? String == "web")
            #expect(view["endpointOrigin"] as? String == "https://fcm.googleapis.com" && view["environment"] == nil)
            for secret in [subscription.keys.p256dh, subscription.keys.auth, "dpH5lCsTSSM"] {
                #expect(!created.text.contains(secret), "the answer never shows the keys or the endpoint")
            }
            // Stored as canonical JSON: endpoint and keys, sorted, base64url without padding.
            let canonical = """
                {"endpoint":"\(Self.endpoint)","keys":{"auth":"\(subscription.keys.auth)","p256dh":"\(subscription.keys.p256dh)"}}
                """
            #expect(try await Self.stored(relay) == canonical)

            // The browser renews its keys for the same endpoint; padded base64url and an expiry time are taken.
            let renewed = try SubscriptionKeyPair.generate()
            var padded = Self.subscription(renewed, expirationTime: 1_900_000_000_000)
            let p256dh = renewed.privateKey.publicKey.base64URLEncodedString()
            let auth = renewed.auth.base64URLEncodedString()
            padded["keys"] = ["p256dh": p256dh + "=", "auth": auth + "=="]
            let updated = try await relay.call("POST", "/v1/devices", json: Self.registration(padded))
            #expect(updated.status == 200, "\(updated.text)")
            #expect(
                try await Self.stored(relay)
                    == canonical.replacingOccurrences(of: subscription.keys.auth, with: auth)
                    .replacingOccurrences(of: subscription.keys.p256dh, with: p256dh)
            )
            // Another spelling of the endpoint is the same device, stored in the one spelling.
            let respelled =
                Self.endpoint.replacingOccurrences(
                    of: "https://fcm.googleapis.com",
                    with: "HTTPS://FCM.googleapis.com:443"
                ) + "?"
            // A device an older build registered under that spelling (the hash of the text as given) goes.
            let former = try WebPushToken(
                identity: PushEndpoint.deviceToken(endpoint: respelled),
                subscription: try #require(try await Self.stored(relay))
            )
            _ = try await relay.relay.store.upsertDevice(
                appId: relay.app.id,
                token: .web(former),
                userId: "bob",
                rooms: [],
                origin: .backend,
                at: Date(),
                limits: nil
            )
            #expect(try await relay.devices(of: "bob").count == 2)
            let again = try await relay.call(
                "POST",
                "/v1/devices",
                json: Self.registration(Self.subscription(renewed, endpoint: respelled))
            )
            #expect(again.status == 200, "\(again.text)")
            #expect(try Self.object(again)["token"] as? String == Self.identity)
            #expect(try await Self.stored(relay)?.contains(#""endpoint":"\#(Self.endpoint)""#) == true)
            let listed = try await relay.devices(of: "bob")
            #expect(listed.map(\.token) == [Self.identity] && listed.map(\.platform) == ["web"])
            // An FCM token never names a web device: it would take the device over by its id alone.
            let asAndroid = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["platform": "android", "token": Self.identity, "userId": "carol"]
            )
            #expect(asAndroid.status == 400 && asAndroid.error?.code == "invalid_device_token", "\(asAndroid.text)")
            #expect(try await relay.devices(of: "bob").map(\.platform) == ["web"])

            // DELETE names the device by its token, with or without `platform=web`.
            #expect(try await relay.call("DELETE", "/v1/devices/\(Self.identity)").status == 204)
            #expect(try await relay.call("DELETE", "/v1/devices/\(Self.identity)?platform=web").status == 404)
            // A malformed web token is refused by the web rules, not read as an FCM token.
            let malformed = try await relay.call("DELETE", "/v1/devices/web-abc")
            #expect(malformed.status == 400 && malformed.error?.code == "invalid_device_token")
            #expect(malformed.text.contains("web device token"), "\(malformed.text)")
            // A platform the query names that is none is the query's fault.
            let unknown = try await relay.call("DELETE", "/v1/devices/\(Self.identity)?platform=zzz")
            #expect(unknown.status == 400 && unknown.error?.code == "invalid_query", "\(unknown.text)")
            #expect(try await Self.stored(relay) == nil)
        }
    }

    @Test func badSubscriptionsAreRefusedNamingTheField() async throws {
        try await withRelayAndMock(configure: Self.withWebPush) { relay in
            let keys = try SubscriptionKeyPair.generate()
            let good = Self.subscription(keys)
            let goodKeys = try #require(good["keys"] as? [String: String])
            func with(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
                var subscription = good
                change(&subscription)
                return Self.registration(subscription)
            }
            // 65 bytes starting 0x04 that are no point on P-256, and a 15-byte auth secret.
            let offCurve = (Data([0x04]) + Data(repeating: 0x01, count: 64)).base64URLEncodedString()
            let shortAuth = Data(repeating: 7, count: 15).base64URLEncodedString()
            var tokenGiven = Self.registration(good)
            tokenGiven["token"] = Self.identity
            var environmentGiven = Self.registration(good)
            environmentGiven["environment"] = "production"
            let cases: [(body: [String: Any], code: String, mentions: String)] = [
                (with { $0["endpoint"] = "http://push.example.com/send/1" }, "invalid_subscription", "endpoint"),
                (with { $0["endpoint"] = "not a url" }, "invalid_subscription", "endpoint"),
                (
                    with { $0["keys"] = ["p256dh": offCurve, "auth": goodKeys["auth"]!] }, "invalid_subscription",
                    "p256dh"
                ),
                (with { $0["keys"] = ["p256dh": "!!", "auth": goodKeys["auth"]!] }, "invalid_subscription", "p256dh"),
                (
                    with { $0["keys"] = ["p256dh": goodKeys["p256dh"]!, "auth": shortAuth] }, "invalid_subscription",
                    "auth"
                ),
                (with { $0["keys"] = nil }, "invalid_subscription", "subscription.keys"),
                (
                    with { $0["keys"] = ["p256dh": goodKeys["p256dh"]!] }, "invalid_subscription",
                    "subscription.keys.auth"
                ),
                (
                    with { $0["keys"] = ["p256dh": 1, "auth": goodKeys["auth"]!] }, "invalid_subscription",
                    "keys.p256dh"
                ),
                (with { $0["endpoint"] = nil }, "invalid_subscription", "subscription.endpoint"),
                (with { $0["expirationTime"] = "tomorrow" }, "invalid_subscription", "expirationTime"),
                (Self.registration("https://push.example.com"), "invalid_subscription", "subscription"),
                (["platform": "web", "userId": "bob"], "invalid_subscription", "subscription"),
                (tokenGiven, "invalid_field", "token"),
                (environmentGiven, "invalid_field", "environment"),
                (["token": randomToken(), "userId": "bob", "subscription": good], "invalid_field", "subscription"),
                (["platform": "android", "userId": "bob", "subscription": good], "invalid_field", "subscription"),
                (["userId": "bob"], "missing_field", "token"),
            ]
            for (body, code, mentions) in cases {
                let answer = try await relay.call("POST", "/v1/devices", json: body)
                #expect(answer.status == 400 && answer.error?.code == code, "\(body): \(answer.text)")
                #expect(answer.error?.message.contains(mentions) == true, "\(answer.text)")
                for secret in [goodKeys["p256dh"]!, goodKeys["auth"]!, offCurve, shortAuth, "dpH5lCsTSSM"] {
                    #expect(!answer.text.contains(secret), "never echoed: \(answer.text)")
                }
            }
            #expect(try await relay.devices(of: "bob").isEmpty)
        }
    }

    /// Plain http is taken only at the origin of the app's mock push service.
    @Test func plainHTTPIsTakenOnlyAtTheAppsMockPushService() async throws {
        try await withRelayAndMock(configure: {
            $0.apps[0].webPush = .init(mock: .init(baseURL: "http://127.0.0.1:8931"))
        }) { relay in
            let keys = try SubscriptionKeyPair.generate()
            let atMock = Self.subscription(keys, endpoint: "http://127.0.0.1:8931/push/s-1")
            let created = try await relay.call("POST", "/v1/devices", json: Self.registration(atMock))
            #expect(created.status == 201, "\(created.text)")
            #expect(try Self.object(created)["endpointOrigin"] as? String == "http://127.0.0.1:8931")
            for endpoint in ["http://127.0.0.1:8932/push/s-2", "http://localhost:8931/push/s-3"] {
                let elsewhere = Self.subscription(keys, endpoint: endpoint)
                let refused = try await relay.call("POST", "/v1/devices", json: Self.registration(elsewhere))
                #expect(refused.status == 400 && refused.error?.code == "invalid_subscription", "\(refused.text)")
            }
        }
    }

    @Test func anAppWithoutWebPushSettingsAnswers422() async throws {
        try await withRelayAndMock { relay in
            let keys = try SubscriptionKeyPair.generate()
            let refused = try await relay.call("POST", "/v1/devices", json: Self.registration(Self.subscription(keys)))
            #expect(refused.status == 422 && refused.error?.code == "platform_not_configured", "\(refused.text)")
            #expect(refused.error?.message.contains("apps[].webPush") == true)
        }
    }

    /// A user registers its own browser and deletes only its own: another user's web device is 404 to it.
    @Test func aUserDeletesOnlyItsOwnWebDevice() async throws {
        try await withRelayAndMock(configure: {
            RelayHarness.withUserAuth(&$0)
            Self.withWebPush(&$0)
        }) { relay in
            let keys = try SubscriptionKeyPair.generate()
            var body = Self.registration(Self.subscription(keys), user: nil)
            body["rooms"] = nil
            let created = try await relay.call("POST", "/v1/devices", json: body, user: "bob")
            #expect(created.status == 201, "\(created.text)")
            #expect(try await relay.call("DELETE", "/v1/devices/\(Self.identity)", user: "carol").status == 404)
            #expect(
                try await relay.call("DELETE", "/v1/devices/\(Self.identity)?platform=web", user: "carol").status == 404
            )
            #expect(try await Self.stored(relay) != nil)
            #expect(
                try await relay.call("DELETE", "/v1/devices/\(Self.identity)?platform=web", user: "bob").status == 204
            )
        }
    }
}
