import Foundation
import RelayCrypto
import Testing
import WebPushCore

@Suite struct SubscriptionTests {
    static let p256dh = RFC8291.uaPublic
    static let auth = RFC8291.auth
    static let endpoint = "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91bHqX-endpoint_Xy3_q9"

    static func json(
        endpoint: String = endpoint,
        expirationTime: String = "null",
        p256dh: String = p256dh,
        auth: String = auth
    )
        -> Data
    {
        Data(
            #"{"endpoint":"\#(endpoint)","expirationTime":\#(expirationTime),"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#
                .utf8
        )
    }

    @Test func aBrowsersSubscriptionDecodesAndValidates() throws {
        let subscription = try JSONDecoder().decode(WebPushSubscription.self, from: Self.json())
        #expect(subscription.expirationTime == nil)
        let valid = try subscription.validated()
        #expect(valid.endpoint.origin == "https://fcm.googleapis.com")
        #expect(valid.keys.p256dh == RFC8291.bytes(RFC8291.uaPublic))
        #expect(valid.keys.auth.count == 16)
        #expect(valid.expirationTime == nil)
        let expiring = try JSONDecoder().decode(
            WebPushSubscription.self,
            from: Self.json(expirationTime: "1800000000000")
        )
        #expect(try expiring.validated().expirationTime == Date(timeIntervalSince1970: 1_800_000_000))
        // Written back as a browser writes it, `expirationTime` null included.
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(subscription)) as? [String: Any]
        #expect(object?["expirationTime"] is NSNull)
        #expect((object?["keys"] as? [String: String])?["auth"] == Self.auth)
        // Without `expirationTime` at all it decodes too.
        let bare = #"{"endpoint":"\#(Self.endpoint)","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}"#
        #expect(throws: Never.self) {
            try JSONDecoder().decode(WebPushSubscription.self, from: Data(bare.utf8)).validated()
        }
    }

    @Test func theDeviceTokenIsWebAndTheEndpointsHashAndLogsShowNoCapability() throws {
        let endpoint = try PushEndpoint(validating: Self.endpoint)
        let expected = "web-" + Digest.sha256(Data(Self.endpoint.utf8)).base64URLEncodedString()
        #expect(endpoint.deviceToken == expected)
        #expect(endpoint.deviceToken.count == 4 + 43)
        #expect(!endpoint.deviceToken.contains("="))
        #expect(PushEndpoint.deviceToken(endpoint: Self.endpoint) == expected)
        #expect(endpoint.logDescription == "https://fcm.googleapis.com/…Xy3_q9")
        #expect("\(endpoint)" == endpoint.logDescription)
        #expect(!endpoint.logDescription.contains("APA91"))
        // A short path shows a quarter of itself at most: never the whole capability.
        let shortPaths = [
            ("https://push.example.com:18091/x", "https://push.example.com:18091/…"),
            ("https://push.example.com/abcdefgh", "https://push.example.com/…gh"),
        ]
        for (text, shown) in shortPaths {
            #expect(try PushEndpoint(validating: text).logDescription == shown)
        }
    }

    @Test(arguments: [
        ("https://push.example.net/p/abc", "https://push.example.net"),
        ("https://Push.Example.NET:443/p/abc", "https://push.example.net"),
        ("https://push.example.net:8443/p/abc", "https://push.example.net:8443"),
        ("HTTPS://push.example.net/p", "https://push.example.net"),
        ("https://push.example.net/p?x=1", "https://push.example.net"),
        ("https://push.example.net./p/abc", "https://push.example.net"),
        ("https://Push.Example.NET.:443/p", "https://push.example.net"),
    ])
    func theAudienceIsTheOriginWithoutTheDefaultPort(endpoint: String, origin: String) throws {
        #expect(try PushEndpoint(validating: endpoint).origin == origin)
        // A mock (allowed by its app) may be an address.
        #expect(try PushEndpoint(validating: "https://[::1]:8443/p", allowingHTTP: true).origin == "https://[::1]:8443")
    }

    /// Spellings of one endpoint are one endpoint (one device): the origin's case, its default port and
    /// trailing dot, an empty query, a fragment and an empty path make no other.
    @Test func spellingsOfOneEndpointAreOne() throws {
        let spellings = [
            "https://push.example.net/p/abc", "HTTPS://Push.Example.NET:443/p/abc", "https://push.example.net./p/abc",
            "https://push.example.net/p/abc?", "https://push.example.net/p/abc#x", "https://push.example.net/p/abc?#",
        ]
        for spelling in spellings {
            let endpoint = try PushEndpoint(validating: spelling)
            #expect(endpoint.text == "https://push.example.net/p/abc", "\(spelling)")
            #expect(endpoint.url.absoluteString == "https://push.example.net/p/abc", "\(spelling)")
            #expect(endpoint.deviceToken == PushEndpoint.deviceToken(endpoint: "https://push.example.net/p/abc"))
        }
        #expect(try PushEndpoint(validating: "https://push.example.net").text == "https://push.example.net/")
        #expect(
            try PushEndpoint(validating: "https://push.example.net:8443/p?x=1").text
                == "https://push.example.net:8443/p?x=1"
        )
        // A device registered with another spelling before had the hash of that spelling.
        let given = "HTTPS://push.example.net/p/abc#x"
        #expect(
            try PushEndpoint(validating: given).formerDeviceToken(given: given)
                == PushEndpoint.deviceToken(endpoint: given)
        )
        let canonical = "https://push.example.net/p/abc"
        #expect(try PushEndpoint(validating: canonical).formerDeviceToken(given: canonical) == nil)
    }

    /// An internationalized host keeps the ASCII form it was given in (`xn--…`): the one its certificate and
    /// VAPID audience name, and one that checks again when the stored endpoint is read to send.
    @Test func anInternationalizedHostStaysInItsASCIIForm() throws {
        let endpoint = try PushEndpoint(validating: "https://XN--nxasmq6b.example/x")
        #expect(endpoint.origin == "https://xn--nxasmq6b.example")
        #expect(endpoint.text == "https://xn--nxasmq6b.example/x")
        #expect(try PushEndpoint(validating: endpoint.text).text == endpoint.text)
        #expect(try PushEndpoint(validating: "https://push.xn--p1ai/a").origin == "https://push.xn--p1ai")
        // A host spelled with escapes is no push service's.
        #expect(throws: WebPushError.self) { try PushEndpoint(validating: "https://%70ush.example.net/p") }
    }

    /// A push service is reached by its name: an address in any spelling, a single label or a local name is
    /// refused, unless the caller allows the app's mock.
    @Test(arguments: [
        "https://127.0.0.1/p", "https://[::1]/p", "https://[::ffff:127.0.0.1]/p", "https://2130706433/p",
        "https://0177.0.0.1/p", "https://0x7f000001/p", "https://127.1/p", "https://localhost/p",
        "https://localhost./p", "https://a.localhost/p", "https://intranet/p", "https://metadata.google.internal/p",
        "https://127.0.0.1%3a8443/p",
    ])
    func endpointsOnTheRelaysOwnNetworkAreRefused(endpoint: String) {
        let error = #expect(throws: WebPushError.self) { try PushEndpoint(validating: endpoint) }
        #expect(error?.code == .invalidEndpoint && error?.message.contains("host") == true, "\(endpoint)")
    }

    @Test(arguments: [("http://127.0.0.1:8080/push/1", "http://127.0.0.1:8080"), ("http://mock:80/x", "http://mock")])
    func plainHTTPOnlyWhenTheCallerAllowsIt(endpoint: String, origin: String) throws {
        let error = #expect(throws: WebPushError.self) { try PushEndpoint(validating: endpoint) }
        #expect(error?.code == .invalidEndpoint)
        #expect(error?.message.contains("https") == true)
        #expect(try PushEndpoint(validating: endpoint, allowingHTTP: true).origin == origin)
    }

    @Test(arguments: [
        "", "push.example.net/p", "ftp://push.example.net/p", "https:///p", "https:push.example.net/p",
        "https://user:pw@push.example.net/p", "https://push.example.net/p q", "https://push.example.net/ä",
        "https://push.example.net:99999/p", "https://push.example.net:99999999999999999999/p",
        "http://[::1]:99999999999999999999/p", "wss://push.example.net/p",
        "https://push.example.net/" + String(repeating: "a", count: PushEndpoint.maxLength),
    ])
    func refusedEndpoints(endpoint: String) {
        let error = #expect(throws: WebPushError.self) { try PushEndpoint(validating: endpoint, allowingHTTP: true) }
        #expect(error?.code == .invalidEndpoint)
    }

    @Test func paddedBase64URLKeysAreTaken() throws {
        let padded = try SubscriptionKeys(p256dh: Self.p256dh + "=", auth: Self.auth + "==")
        #expect(padded == (try SubscriptionKeys(p256dh: Self.p256dh, auth: Self.auth)))
    }

    @Test func aPointOffTheCurveIsRefused() throws {
        var point = RFC8291.bytes(Self.p256dh)
        point[64] ^= 0x01  // y no longer matches x
        let error = #expect(throws: WebPushError.self) {
            try SubscriptionKeys(p256dh: point.base64URLEncodedString(), auth: Self.auth)
        }
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("curve") == true)
    }

    @Test(arguments: [
        RFC8291.bytes(RFC8291.uaPublic).prefix(33),  // compressed length
        Data([0x02]) + RFC8291.bytes(RFC8291.uaPublic).dropFirst(),  // not the uncompressed form
        Data(repeating: 0, count: 65), Data(),
    ])
    func aKeyThatIsNotAnUncompressedPointIsRefused(point: Data) {
        let error = #expect(throws: WebPushError.self) {
            try SubscriptionKeys(p256dh: point.base64URLEncodedString(), auth: Self.auth)
        }
        #expect(error?.code == .invalidKey)
    }

    @Test(arguments: [15, 17, 0, 32])
    func anAuthSecretOfAnotherLengthIsRefused(count: Int) {
        let auth = Data(repeating: 7, count: count).base64URLEncodedString()
        let error = #expect(throws: WebPushError.self) { try SubscriptionKeys(p256dh: Self.p256dh, auth: auth) }
        #expect(error?.code == .invalidAuth)
    }

    @Test(arguments: [("p256dh", "not*base64"), ("auth", "BTBZMqHH6r4Tts7J+aSIgg"), ("auth", "BTBZMqHH6r4Tts7J/aSIgg")])
    func textThatIsNotBase64URLIsRefused(field: String, value: String) {
        let error = #expect(throws: WebPushError.self) {
            field == "auth"
                ? try SubscriptionKeys(p256dh: Self.p256dh, auth: value)
                : try SubscriptionKeys(p256dh: value, auth: Self.auth)
        }
        #expect(error?.code == (field == "auth" ? .invalidAuth : .invalidKey))
    }

    @Test func theEndpointIsCheckedBeforeTheKeys() throws {
        let subscription = try JSONDecoder().decode(
            WebPushSubscription.self,
            from: Self.json(endpoint: "http://push.example.net/p", auth: "AAAA")
        )
        let error = #expect(throws: WebPushError.self) { try subscription.validated() }
        #expect(error?.code == .invalidEndpoint)
    }

    @Test func aMadeSubscriptionIsValidAndItsPrivateKeyReadsBack() throws {
        let pair = try SubscriptionKeyPair.generate()
        let subscription = pair.subscription(endpoint: "http://127.0.0.1:9/push/abc")
        let valid = try subscription.validated(allowingHTTP: true)
        #expect(valid.keys == pair.keys)
        let again = try KeyAgreementKey(rawPrivateKey: pair.privateKey.rawPrivateKey)
        #expect(again.publicKey == pair.privateKey.publicKey)
        #expect(throws: WebPushError.self) { try KeyAgreementKey(rawPrivateKey: Data(repeating: 0, count: 32)) }
        #expect(throws: WebPushError.self) { try KeyAgreementKey(rawPrivateKey: Data(repeating: 0xFF, count: 32)) }
        #expect(throws: WebPushError.self) { try KeyAgreementKey(rawPrivateKey: Data(repeating: 1, count: 31)) }
        let shortAuth = #expect(throws: WebPushError.self) {
            try SubscriptionKeyPair(privateKey: pair.privateKey, auth: Data(repeating: 1, count: 15))
        }
        #expect(shortAuth?.code == .invalidAuth)
    }
}
