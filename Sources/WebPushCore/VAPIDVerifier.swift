import Foundation
import RelayCrypto

/// Checks a VAPID `Authorization` header as a push service does (RFC 8292 §2, §3; the mock push service
/// uses it): the JWT is ES256, its signature verifies with `k`, `aud` is the endpoint's origin, `exp` is in
/// the future and at most 24 hours away, and `sub` is a `mailto:` or `https:` contact.
public enum VAPIDVerifier {
    /// What a verified header says.
    public struct Verified: Sendable, Hashable {
        /// The signer's public key, an uncompressed P-256 point (65 bytes): the key the subscription should be
        /// bound to.
        public var publicKey: Data
        public var claims: VAPIDClaims
    }

    /// The claims as read before they are checked: each may be missing or of another type.
    private struct UncheckedClaims: Decodable {
        var aud: String?
        var exp: Double?
        var sub: String?
    }

    /// Verifies `headerValue` for a push to `audience` at `now`.
    /// - Throws: ``WebPushError``: `.invalidCredentials` (not `vapid t=…, k=…`, `k` not a P-256 key, the JWT
    ///   malformed or not ES256), `.badSignature`, `.wrongAudience`, `.badExpiry` (missing, past, or more than
    ///   24 hours ahead), `.invalidSubject` (missing or not mailto:/https:), checked in that order.
    public static func verify(_ headerValue: String, audience: String, now: Date) throws(WebPushError) -> Verified {
        let authorization = try VAPIDAuthorization(parsing: headerValue)
        guard let point = Data(base64URLEncoded: authorization.publicKey),
            let key = try? PublicKey(p256Point: point)
        else {
            throw WebPushError(.invalidCredentials, "k is not base64url of an uncompressed P-256 public key")
        }
        let jws: CompactJWS
        do { jws = try CompactJWS(parsing: authorization.token) } catch {
            throw WebPushError(.invalidCredentials, "t is not a JWT (three base64url parts)")
        }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(VAPIDHeader.self, from: jws.header), header.alg == "ES256",
            header.typ.map({ $0.uppercased() == "JWT" }) ?? true
        else { throw WebPushError(.invalidCredentials, "the JWT header must be {\"typ\":\"JWT\",\"alg\":\"ES256\"}") }
        guard key.verify(signature: jws.signature, for: Data(jws.signingInput.utf8)) else {
            throw WebPushError(.badSignature, "the JWT signature does not verify with k")
        }
        guard let claims = try? decoder.decode(UncheckedClaims.self, from: jws.payload) else {
            throw WebPushError(.invalidCredentials, "the JWT claims are not a JSON object of aud, exp and sub")
        }
        guard let aud = claims.aud, aud == audience else {
            throw WebPushError(
                .wrongAudience,
                "the JWT aud is \(claims.aud.map { "'\($0)'" } ?? "missing"); this endpoint's origin is '\(audience)'"
            )
        }
        let seconds = now.timeIntervalSince1970
        guard let exp = claims.exp, exp.isFinite, exp > seconds else {
            throw WebPushError(.badExpiry, "the JWT exp is missing or past")
        }
        guard exp <= seconds + Double(VAPIDKey.maxLifetime) else {
            throw WebPushError(.badExpiry, "the JWT exp is more than 24 hours ahead")
        }
        guard let sub = claims.sub else { throw WebPushError(.invalidSubject, "the JWT has no sub") }
        _ = try VAPIDSubject(validating: sub)
        return Verified(publicKey: point, claims: VAPIDClaims(aud: aud, exp: Int(exp), sub: sub))
    }
}
