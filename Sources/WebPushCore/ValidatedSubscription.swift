import Foundation

/// A subscription whose endpoint and keys passed ``WebPushSubscription/validated(allowingHTTP:)``: what the
/// transport sends to.
public struct ValidatedSubscription: Sendable, Hashable {
    public let endpoint: PushEndpoint
    public let keys: SubscriptionKeys
    /// When the browser said the subscription expires; nil when it gave none.
    public let expirationTime: Date?

    public init(endpoint: PushEndpoint, keys: SubscriptionKeys, expirationTime: Date? = nil) {
        self.endpoint = endpoint
        self.keys = keys
        self.expirationTime = expirationTime
    }

    /// The device token (``PushEndpoint/deviceToken``).
    public var deviceToken: String { endpoint.deviceToken }
}
