import Foundation

/// A push subscription as a browser's `PushSubscription.toJSON()` gives it (Push API §"PushSubscriptionJSON"):
/// `{"endpoint", "expirationTime": null | number, "keys": {"p256dh", "auth"}}`, keys in base64url.
///
/// Decoding reads only the shape; ``validated(allowingHTTP:)`` checks the endpoint and the keys.
public struct WebPushSubscription: Codable, Sendable, Hashable {
    /// The subscription's keys as base64url text.
    public struct Keys: Codable, Sendable, Hashable {
        /// The user agent's P-256 public key, uncompressed point.
        public var p256dh: String
        /// The 16-byte authentication secret.
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    /// The push service URL messages are posted to (a capability URL: see ``PushEndpoint``).
    public var endpoint: String
    /// When the subscription expires, in MILLISECONDS since the UNIX epoch (`DOMHighResTimeStamp`); nil when
    /// the browser gives `null` (most do).
    public var expirationTime: Double?
    public var keys: Keys

    public init(endpoint: String, expirationTime: Double? = nil, keys: Keys) {
        self.endpoint = endpoint
        self.expirationTime = expirationTime
        self.keys = keys
    }

    private enum CodingKeys: String, CodingKey { case endpoint, expirationTime, keys }

    /// Writes `expirationTime` as `null` when absent, as a browser does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(endpoint, forKey: .endpoint)
        try container.encode(expirationTime, forKey: .expirationTime)
        try container.encode(keys, forKey: .keys)
    }

    /// Checks the endpoint (``PushEndpoint/init(validating:allowingHTTP:)``) and the keys
    /// (``SubscriptionKeys/init(p256dh:auth:)-(String,String)``).
    /// - Throws: ``WebPushError`` `.invalidEndpoint`, `.invalidKey` or `.invalidAuth`, the endpoint first.
    public func validated(allowingHTTP: Bool = false) throws(WebPushError) -> ValidatedSubscription {
        ValidatedSubscription(
            endpoint: try PushEndpoint(validating: endpoint, allowingHTTP: allowingHTTP),
            keys: try SubscriptionKeys(p256dh: keys.p256dh, auth: keys.auth),
            expirationTime: expirationTime.map { Date(timeIntervalSince1970: $0 / 1000) }
        )
    }
}
