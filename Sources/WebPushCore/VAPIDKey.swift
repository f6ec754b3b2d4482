import Foundation
import RelayCrypto

/// An application server's VAPID key (RFC 8292): a P-256 private key that signs the JWT of each push
/// request's `Authorization: vapid t=…, k=…`. Its public key is the `applicationServerKey` a page passes to
/// `pushManager.subscribe`, which binds the subscription to this key.
public final class VAPIDKey: Sendable {
    let key: ES256Key
    /// The public key, an uncompressed P-256 point (65 bytes).
    public let publicKey: Data

    /// The longest a token may live (RFC 8292 §2: `exp` at most 24 hours after the request), in SECONDS.
    public static let maxLifetime = 24 * 60 * 60
    /// The lifetime ``authorization(audience:subject:now:lifetime:)`` gives by default, in SECONDS: half the
    /// maximum, so a cached token is still far from its limit when a push service checks it.
    public static let defaultLifetime = 12 * 60 * 60

    private init(key: ES256Key) throws(WebPushError) {
        let point = EVPKey.uncompressedPoint(key.pkey)
        guard point.count == 65 else { throw WebPushError(.invalidKey, "the VAPID key has no P-256 public point") }
        self.key = key
        self.publicKey = Data(point)
    }

    /// Reads the key from a PEM file's contents: PKCS#8 `BEGIN PRIVATE KEY` or `BEGIN EC PRIVATE KEY`, on
    /// P-256, unencrypted.
    /// - Throws: ``WebPushError`` `.invalidKey` saying why the text is not such a key.
    public convenience init(privateKeyPEM pem: String) throws(WebPushError) {
        let key: ES256Key
        do { key = try ES256Key(privateKeyPEM: pem) } catch {
            throw WebPushError(.invalidKey, "the VAPID key is not a P-256 private key in PEM: \(error.message)")
        }
        try self.init(key: key)
    }

    /// Makes a fresh key (`push-relay keys vapid`, tests).
    /// - Throws: ``WebPushError`` `.cryptoFailed` when OpenSSL cannot.
    public static func generate() throws(WebPushError) -> VAPIDKey {
        let key: ES256Key
        do { key = try ES256Key.generate() } catch {
            throw WebPushError(.cryptoFailed, "generating a VAPID key: \(error.message)")
        }
        return try VAPIDKey(key: key)
    }

    /// The private key as PKCS#8 PEM (`BEGIN PRIVATE KEY`), the file `apps[].webPush.vapidKeyFile` names.
    public var privateKeyPEM: String { key.privateKeyPEM ?? "" }

    /// ``publicKey`` as base64url without padding: the `k` parameter and a page's `applicationServerKey`.
    public var publicKeyBase64URL: String { publicKey.base64URLEncodedString() }

    /// Signs a VAPID JWT for one push service origin: header `{"typ":"JWT","alg":"ES256"}`, claims `aud`,
    /// `exp` = `now` + `lifetime` (whole seconds), `sub`; the signature raw R‖S (RFC 7518 §3.4).
    /// - Parameters:
    ///   - audience: the push service's origin (``PushEndpoint/origin``).
    ///   - lifetime: SECONDS until `exp`, 1 to ``maxLifetime``.
    /// - Throws: ``WebPushError`` `.badExpiry` for a lifetime out of range, `.cryptoFailed` when signing fails.
    public func authorization(
        audience: String,
        subject: VAPIDSubject,
        now: Date,
        lifetime: Int = VAPIDKey.defaultLifetime
    ) throws(WebPushError) -> VAPIDAuthorization {
        guard (1...Self.maxLifetime).contains(lifetime) else {
            throw WebPushError(.badExpiry, "a VAPID token lives 1 to \(Self.maxLifetime) seconds, not \(lifetime)")
        }
        let claims = VAPIDClaims(aud: audience, exp: Int(now.timeIntervalSince1970) + lifetime, sub: subject.value)
        do {
            let jws = try CompactJWS.sign(header: VAPIDHeader(), payload: claims) { (input) throws(CryptoError) in
                try key.sign(input)
            }
            return VAPIDAuthorization(token: jws.compact, publicKey: publicKeyBase64URL)
        } catch { throw WebPushError(.cryptoFailed, "signing the VAPID token: \(error.message)") }
    }
}
