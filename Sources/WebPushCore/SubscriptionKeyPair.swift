import Foundation
import RelayCrypto

/// A user agent's side of a subscription: the P-256 key pair and the auth secret a browser makes when it
/// subscribes (RFC 8291 §2). The mock push service makes one for each subscription it hands out
/// (`--new-subscription`), gives the public half to the relay and opens the messages with the private half.
public struct SubscriptionKeyPair: Sendable {
    /// The private key; its public point is the subscription's `p256dh`.
    public let privateKey: KeyAgreementKey
    /// The authentication secret, ``SubscriptionKeys/authSize`` bytes.
    public let auth: Data

    /// A key pair from a known private key and auth secret (the mock reading what it saved, RFC 8291's
    /// example in tests).
    /// - Throws: ``WebPushError`` `.invalidAuth` when `auth` is not 16 bytes.
    public init(privateKey: KeyAgreementKey, auth: Data) throws(WebPushError) {
        guard auth.count == SubscriptionKeys.authSize else {
            throw WebPushError(.invalidAuth, "an auth secret is \(SubscriptionKeys.authSize) bytes, got \(auth.count)")
        }
        self.privateKey = privateKey
        self.auth = auth
    }

    /// A fresh key pair and auth secret from OpenSSL's CSPRNG.
    /// - Throws: ``WebPushError`` `.cryptoFailed` when OpenSSL cannot make them.
    public static func generate() throws(WebPushError) -> SubscriptionKeyPair {
        let auth: Data
        do { auth = try Digest.randomBytes(SubscriptionKeys.authSize) } catch {
            throw WebPushError(.cryptoFailed, "random auth secret: \(error.message)")
        }
        return try SubscriptionKeyPair(privateKey: KeyAgreementKey.generate(), auth: auth)
    }

    /// The public half, as the relay holds it.
    public var keys: SubscriptionKeys {
        // A key made by OpenSSL and a 16-byte secret: always valid.
        try! SubscriptionKeys(p256dh: privateKey.publicKey, auth: auth)
    }

    /// The subscription a browser would hand its page for `endpoint`: keys in base64url, no expiry.
    public func subscription(endpoint: String) -> WebPushSubscription {
        WebPushSubscription(
            endpoint: endpoint,
            keys: .init(
                p256dh: privateKey.publicKey.base64URLEncodedString(),
                auth: auth.base64URLEncodedString()
            )
        )
    }

    /// Opens a message body sent to this subscription (``MessageEncryption/decrypt(_:privateKey:auth:)``).
    public func decrypt(_ body: some DataProtocol) throws(WebPushError) -> Data {
        try MessageEncryption.decrypt(body, privateKey: privateKey, auth: auth)
    }
}
