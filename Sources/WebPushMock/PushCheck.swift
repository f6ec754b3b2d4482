import Foundation
import RelayCore
import RelayCrypto
import WebPushCore

/// The checks a push service makes of `POST /push/<id>` once the subscription is known, in order:
///
/// 1. `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292 §3) verified by ``VAPIDVerifier`` with `aud` = the
///    subscription endpoint's origin: missing or malformed → 401; a signature that does not verify, another
///    `aud`, `exp` past or more than 24 h ahead, no or a bad `sub`, a `k` other than the subscription's
///    `applicationServerKey` → 403 (RFC 8292 §4.2: 401 when the authentication is absent, 403 when it is
///    invalid).
/// 2. `TTL` present, a whole number >= 0 (RFC 8030 §5.2) → else 400.
/// 3. `Urgency`, when present, one of very-low, low, normal, high (RFC 8030 §5.3) → else 400.
/// 4. `Topic`, when present, 1 to 32 base64url characters (RFC 8030 §5.4) → else 400.
/// 5. `Content-Encoding: aes128gcm` (RFC 8291 §4) → else 415 Unsupported Media Type (RFC 9110 §15.5.16:
///    the request's content coding is not supported; RFC 8030 and RFC 8291 name no status).
/// 6. The body at most 4,096 bytes (RFC 8030 §7.2) → else 413.
/// 7. The body decrypts with the subscription's private key and auth secret (RFC 8291) → else 400.
/// 8. The plaintext is one of the ``PayloadShape``s → else 400.
enum PushCheck {
    /// What was read of a push, valid or not: what its record shows.
    struct Facts: Sendable {
        var ttl: Int?
        var urgency: String?
        var topic: String?
        var vapid: VAPIDVerifier.Verified?
        /// `k` as sent, when the header parsed (also for a refused signature).
        var vapidKey: String?
        var payload: JSONValue?
        var shape: PayloadShape.Kind?
    }

    /// The urgencies of RFC 8030 §5.3.
    static let urgencies: Set<String> = ["very-low", "low", "normal", "high"]
    /// The longest `TTL` value read, in characters (a push service caps TTL far lower anyway).
    static let maxTTLLength = 10

    /// Checks a push to `subscription`; `headers` has lowercase names (the first value of each).
    static func check(
        headers: [String: String],
        body: [UInt8],
        totalBytes: Int,
        subscription: MockSubscription,
        now: Date
    ) -> (Facts, PushError?) {
        var facts = Facts()
        guard let authorization = headers["authorization"] else {
            return (
                facts,
                PushError(
                    status: 401,
                    errno: 109,
                    message: "Missing Authorization header: VAPID (RFC 8292) is required"
                )
            )
        }
        if let parsed = try? VAPIDAuthorization(parsing: authorization) { facts.vapidKey = parsed.publicKey }
        do {
            facts.vapid = try VAPIDVerifier.verify(authorization, audience: subscription.endpoint.origin, now: now)
        } catch {
            let status = error.code == .invalidCredentials ? 401 : 403
            return (facts, PushError(status: status, errno: 109, message: "VAPID: \(error.message)"))
        }
        if let restriction = subscription.applicationServerKey, facts.vapid?.publicKey != restriction {
            return (
                facts,
                PushError(
                    status: 403,
                    errno: 109,
                    message: "VAPID: k is not the applicationServerKey this subscription was made for (RFC 8292 §4)"
                )
            )
        }
        guard let ttlText = headers["ttl"] else {
            return (facts, .badRequest(111, "Missing TTL header (RFC 8030 §5.2)"))
        }
        guard ttlText.utf8.count <= maxTTLLength, ttlText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let ttl = Int(ttlText)
        else { return (facts, .badRequest(112, "TTL must be a whole number of seconds >= 0")) }
        facts.ttl = ttl
        if let urgency = headers["urgency"] {
            facts.urgency = urgency
            guard urgencies.contains(urgency) else {
                return (facts, .badRequest(112, "Urgency must be one of very-low, low, normal, high (RFC 8030 §5.3)"))
            }
        }
        if let topic = headers["topic"] {
            facts.topic = topic
            do { _ = try Topic(validating: topic) } catch { return (facts, .badRequest(112, error.message)) }
        }
        guard headers["content-encoding"]?.lowercased() == "aes128gcm" else {
            return (
                facts,
                PushError(status: 415, errno: 110, message: "Content-Encoding must be aes128gcm (RFC 8291)")
            )
        }
        guard totalBytes <= MessageEncryption.maxBodySize else {
            return (
                facts,
                PushError(
                    status: 413,
                    errno: 104,
                    message: "the body is \(totalBytes) bytes; at most \(MessageEncryption.maxBodySize) are taken"
                )
            )
        }
        let plaintext: Data
        do { plaintext = try subscription.keyPair.decrypt(body) } catch {
            return (facts, .badRequest(110, "the body does not decrypt for this subscription: \(error.message)"))
        }
        switch PayloadShape.check(plaintext) {
        case .failure(let refusal): return (facts, .badRequest(110, refusal.message))
        case .success(let (kind, payload)):
            facts.shape = kind
            facts.payload = payload
            return (facts, nil)
        }
    }
}
