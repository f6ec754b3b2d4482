import Foundation
import WebPushCore

/// One push message to one subscription, before encryption: what ``WebPushClient/send(_:)`` posts.
public struct WebPushMessage: Sendable {
    /// The subscription it goes to (endpoint and keys).
    public var subscription: ValidatedSubscription
    /// The JSON the browser receives (``WebPushCore/WebPushPayload/encoded()``), at most
    /// ``WebPushCore/MessageEncryption/maxPlaintextSize`` bytes.
    public var plaintext: Data
    /// The `TTL` header: SECONDS the push service keeps the message for an offline browser (RFC 8030 §5.2).
    public var ttlSeconds: Int
    /// The `Topic` header: a newer message of the same topic replaces an undelivered one (RFC 8030 §5.4).
    public var topic: Topic?

    public init(subscription: ValidatedSubscription, plaintext: Data, ttlSeconds: Int, topic: Topic?) {
        self.subscription = subscription
        self.plaintext = plaintext
        self.ttlSeconds = ttlSeconds
        self.topic = topic
    }
}
