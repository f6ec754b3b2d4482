import Foundation
import RelayCrypto
import WebPushCore

/// A subscription the mock made: its id (the endpoint's last path segment), the endpoint, and the user
/// agent's key pair that opens the messages sent to it.
struct MockSubscription: Sendable {
    let id: String
    let endpoint: PushEndpoint
    let keyPair: SubscriptionKeyPair
    /// The VAPID public key (65-byte point) the subscription is restricted to (RFC 8292 §4: the page's
    /// `applicationServerKey`); nil accepts any signer.
    let applicationServerKey: Data?

    /// The URL the subscription was made under: the endpoint without `/push/<id>`.
    var baseURL: String {
        let suffix = MockWebPushService.pushPrefix + id
        return endpoint.text.hasSuffix(suffix) ? String(endpoint.text.dropLast(suffix.count)) : endpoint.origin
    }

    /// What a browser's `PushSubscription.toJSON()` would give for it.
    var subscription: WebPushSubscription { keyPair.subscription(endpoint: endpoint.text) }

    /// Whether `id` has the form of an id the mock makes: 1 to 64 base64url characters. Checked before an id
    /// names a file.
    static func isWellFormed(id: some StringProtocol) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// A fresh subscription under `baseURL` (`<baseURL>/push/<id>`): 16 random bytes of id, `keyPair` or a new
    /// key pair, restricted to `applicationServerKey` (base64url) when given.
    /// - Throws: ``WebPushError`` `.invalidEndpoint` when `baseURL` is not an http(s) URL, `.invalidKey` when
    ///   `applicationServerKey` is not base64url of a P-256 point, `.cryptoFailed`.
    static func make(
        baseURL: String,
        applicationServerKey: String?,
        keyPair: SubscriptionKeyPair? = nil
    ) throws(WebPushError) -> MockSubscription {
        let restriction = try applicationServerKey.map { (text) throws(WebPushError) in try publicKey(text) }
        let id: String
        do { id = try Digest.randomBytes(16).base64URLEncodedString() } catch {
            throw WebPushError(.cryptoFailed, "random subscription id: \(error.message)")
        }
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        let endpoint = try PushEndpoint(validating: "\(base)\(MockWebPushService.pushPrefix)\(id)", allowingHTTP: true)
        let pair: SubscriptionKeyPair
        if let keyPair { pair = keyPair } else { pair = try SubscriptionKeyPair.generate() }
        return MockSubscription(
            id: id,
            endpoint: endpoint,
            keyPair: pair,
            applicationServerKey: restriction
        )
    }

    /// The JSON of a subscription file (`<id>.json` in the subscriptions directory).
    struct File: Codable {
        var endpoint: String
        /// The subscription's P-256 private key as PKCS#8 PEM (``WebPushCore/KeyAgreementKey/privateKeyPEM``).
        var privateKey: String
        /// base64url, 16 bytes.
        var auth: String
        /// base64url of the VAPID public key the subscription is restricted to; absent for none.
        var applicationServerKey: String?
    }

    var file: File {
        File(
            endpoint: endpoint.text,
            privateKey: keyPair.privateKey.privateKeyPEM,
            auth: keyPair.auth.base64URLEncodedString(),
            applicationServerKey: applicationServerKey?.base64URLEncodedString()
        )
    }

    /// Reads a subscription file's content.
    /// - Throws: ``WebPushError`` when the endpoint, key, auth secret or application server key is unusable.
    init(id: String, file: File) throws(WebPushError) {
        try self.init(id: id, file: file, keyPair: Self.keyPair(of: file))
    }

    /// Reads a subscription file's content whose key pair was read already (``keyPair(of:)``).
    /// - Throws: ``WebPushError`` when the endpoint or application server key is unusable.
    init(id: String, file: File, keyPair: SubscriptionKeyPair) throws(WebPushError) {
        // A file copied under another id would open pushes to an endpoint it was not made for.
        guard file.endpoint.hasSuffix(MockWebPushService.pushPrefix + id) else {
            throw WebPushError(.invalidEndpoint, "subscription file: the endpoint does not end in /push/\(id)")
        }
        self.init(
            id: id,
            endpoint: try PushEndpoint(validating: file.endpoint, allowingHTTP: true),
            keyPair: keyPair,
            applicationServerKey: try file.applicationServerKey.map { (text) throws(WebPushError) in
                try Self.publicKey(text)
            }
        )
    }

    /// The key pair of a subscription file: its private key (PEM) and auth secret.
    /// - Throws: ``WebPushError`` `.invalidKey` or `.invalidAuth` when either is unusable.
    static func keyPair(of file: File) throws(WebPushError) -> SubscriptionKeyPair {
        guard let auth = Data(base64URLEncoded: file.auth) else {
            throw WebPushError(.invalidAuth, "subscription file: auth is not base64url")
        }
        return try SubscriptionKeyPair(privateKey: KeyAgreementKey(privateKeyPEM: file.privateKey), auth: auth)
    }

    init(id: String, endpoint: PushEndpoint, keyPair: SubscriptionKeyPair, applicationServerKey: Data?) {
        self.id = id
        self.endpoint = endpoint
        self.keyPair = keyPair
        self.applicationServerKey = applicationServerKey
    }

    /// A VAPID public key from its base64url form (a page's `applicationServerKey`, VAPID's `k`).
    /// - Throws: ``WebPushError`` `.invalidKey` when it is not an uncompressed P-256 point.
    private static func publicKey(_ text: String) throws(WebPushError) -> Data {
        guard text.utf8.count <= 100, let point = Data(base64URLEncoded: text),
            (try? PublicKey(p256Point: point)) != nil
        else {
            throw WebPushError(.invalidKey, "applicationServerKey must be base64url of an uncompressed P-256 point")
        }
        return point
    }
}
