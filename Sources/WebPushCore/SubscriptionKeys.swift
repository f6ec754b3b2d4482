import Foundation
import RelayCrypto

/// A subscription's keys, checked: the user agent's P-256 public key `p256dh` and its 16-byte `auth` secret
/// (RFC 8291 §2, §3.2), which the relay encrypts each message to.
public struct SubscriptionKeys: Sendable, Hashable {
    /// The user agent's public key, an uncompressed P-256 point: 65 bytes starting with 0x04.
    public let p256dh: Data
    /// The authentication secret: 16 bytes.
    public let auth: Data

    /// The size of ``auth`` in bytes (RFC 8291 §3.2).
    public static let authSize = 16

    /// Checks raw key bytes: `p256dh` must be an uncompressed point on P-256 (checked by OpenSSL: RFC 8291 §6
    /// requires it, an invalid point can leak the private key), `auth` exactly ``authSize`` bytes.
    /// - Throws: ``WebPushError`` `.invalidKey` or `.invalidAuth` saying what is wrong.
    public init(p256dh: some DataProtocol, auth: some DataProtocol) throws(WebPushError) {
        let point = Data(p256dh), secret = Data(auth)
        guard point.count == 65, point.first == 0x04 else {
            throw WebPushError(
                .invalidKey,
                "keys.p256dh must be an uncompressed P-256 point (65 bytes starting 0x04), got \(point.count) bytes"
            )
        }
        do { _ = try PublicKey(p256Point: point) } catch {
            throw WebPushError(.invalidKey, "keys.p256dh is not a point on the P-256 curve")
        }
        guard secret.count == Self.authSize else {
            throw WebPushError(.invalidAuth, "keys.auth must be \(Self.authSize) bytes, got \(secret.count)")
        }
        self.p256dh = point
        self.auth = secret
    }

    /// Reads the base64url forms a browser's `PushSubscription.toJSON()` gives (padding tolerated) and checks
    /// them as ``init(p256dh:auth:)`` does.
    /// - Throws: ``WebPushError`` `.invalidKey` or `.invalidAuth`, also for text that is not base64url.
    public init(p256dh: String, auth: String) throws(WebPushError) {
        // A bound before decoding: the valid forms are 87 and 22 characters (88 and 24 padded).
        guard p256dh.utf8.count <= 100, let point = Data(base64URLEncoded: p256dh) else {
            throw WebPushError(.invalidKey, "keys.p256dh must be base64url of an uncompressed P-256 point")
        }
        guard auth.utf8.count <= 32, let secret = Data(base64URLEncoded: auth) else {
            throw WebPushError(.invalidAuth, "keys.auth must be base64url of \(Self.authSize) bytes")
        }
        try self.init(p256dh: point, auth: secret)
    }
}
