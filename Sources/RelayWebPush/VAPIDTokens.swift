import Foundation
import RelayCore
import Synchronization
import WebPushCore

/// The VAPID `Authorization` of each push service origin one app sends to, signed once and reused: a token
/// is signed for ``WebPushClientConfiguration/tokenLifetime`` (12 hours, within RFC 8292 §2's 24) and
/// replaced when less than ``WebPushClientConfiguration/tokenRenewal`` (1 hour) of it is left, so a push
/// service never sees one that is about to expire and the key signs a few times a day per origin.
///
/// Bounded: at most ``maxOrigins`` origins are kept (endpoints are users' input, any site can be one);
/// beyond that the tokens that expire first are dropped.
final class VAPIDTokens: Sendable {
    private struct Entry {
        var authorization: VAPIDAuthorization
        /// The token's `exp`, UNIX epoch SECONDS.
        var expiresAt: Int
    }

    /// The most origins whose token is kept.
    static let maxOrigins = 1024

    private let key: VAPIDKey
    private let subject: VAPIDSubject
    private let lifetime: Int
    private let renewal: Int
    private let time: any TimeSource
    private let entries = Mutex<[String: Entry]>([:])
    private let signed = Atomic<Int>(0)

    /// - Parameters:
    ///   - lifetime: SECONDS each token is signed for.
    ///   - renewal: SECONDS before its expiry a token is replaced.
    init(key: VAPIDKey, subject: VAPIDSubject, lifetime: Int, renewal: Int, time: any TimeSource) {
        self.key = key
        self.subject = subject
        self.lifetime = lifetime
        self.renewal = renewal
        self.time = time
    }

    /// How many tokens were signed so far.
    var minted: Int { signed.load(ordering: .relaxed) }

    /// How many origins have a token kept.
    var cachedOrigins: Int { entries.withLock { $0.count } }

    /// The authorization for pushes to `origin` (the JWT's `aud`): the cached one while more than the
    /// renewal margin of it is left, else a new one.
    /// - Throws: ``WebPushCore/WebPushError`` `.cryptoFailed` when signing fails.
    func authorization(for origin: String) throws(WebPushError) -> VAPIDAuthorization {
        let now = time.now
        let seconds = Int(now.timeIntervalSince1970)
        // Signed under the lock (about 60 µs), so concurrent first sends to an origin sign one token.
        return try entries.withLock { (entries) throws(WebPushError) -> VAPIDAuthorization in
            if let entry = entries[origin], entry.expiresAt - seconds > renewal { return entry.authorization }
            let authorization = try key.authorization(audience: origin, subject: subject, now: now, lifetime: lifetime)
            signed.add(1, ordering: .relaxed)
            entries[origin] = Entry(authorization: authorization, expiresAt: seconds + lifetime)
            if entries.count > Self.maxOrigins {
                let soonest = entries.sorted { $0.value.expiresAt < $1.value.expiresAt }
                for (dropped, _) in soonest.prefix(entries.count - Self.maxOrigins) { entries[dropped] = nil }
            }
            return authorization
        }
    }
}
