import APNsCore
import Foundation
import RelayCore
import RelayCrypto

/// One connection's provider-token state: verified tokens (cached per distinct token string), the token in
/// use and when it was first used, and the team the connection is bound to.
///
/// Rules from Apple, "Establishing a token-based connection to APNs" and "Handling notification responses
/// from APNs": missing -> 403 MissingProviderToken; unparseable, bad signature, unknown `kid`, `iss` not the
/// key's team -> 403 InvalidProviderToken; `iat` older than 1 h -> 403 ExpiredProviderToken; a connection
/// serves the team of its first valid token, another team -> 403 Forbidden; a different token within
/// 20 minutes of the current one's first use -> 429 TooManyProviderTokenUpdates.
/// Not `Sendable`: only the event-loop thread uses it.
struct ProviderTokenCheck {
    private enum Verdict {
        case valid(teamId: String, issuedAt: Int)
        case invalid
    }

    private var cache: [Substring: Verdict] = [:]
    private var current: Substring?
    private var currentFirstUse: Duration = .zero
    private(set) var boundTeam: String?

    /// Checks the `authorization` header value; nil when the request may proceed.
    mutating func check(
        authorization: String?,
        keys: [String: (teamId: String, key: ES256Key)],
        time: any TimeSource
    ) -> APNsReason? {
        guard let authorization else { return .missingProviderToken }
        let scheme = authorization.prefix(7)
        guard scheme.count == 7, scheme.lowercased() == "bearer " else { return .invalidProviderToken }
        let token = authorization.dropFirst(7)
        let verdict: Verdict
        if let cached = cache[token] {
            verdict = cached
        } else {
            verdict = Self.verify(token, keys: keys)
            if cache.count >= 64 { cache.removeAll() }
            cache[token] = verdict
        }
        guard case .valid(let teamId, let issuedAt) = verdict else { return .invalidProviderToken }
        if Int(time.now.timeIntervalSince1970) - issuedAt > APNsLimits.providerTokenMaxAgeSeconds {
            return .expiredProviderToken
        }
        if let boundTeam, boundTeam != teamId { return .forbidden }
        if let current, current != token {
            if time.monotonic - currentFirstUse < .seconds(APNsLimits.providerTokenMinRefreshSeconds) {
                return .tooManyProviderTokenUpdates
            }
            self.current = token
            currentFirstUse = time.monotonic
        } else if current == nil {
            current = token
            currentFirstUse = time.monotonic
            boundTeam = teamId
        }
        return nil
    }

    private static func verify(_ token: Substring, keys: [String: (teamId: String, key: ES256Key)]) -> Verdict {
        guard let jwt = try? JSONWebToken(parsing: String(token)),
            let entry = keys[jwt.header.kid],
            entry.teamId == jwt.claims.iss,
            jwt.verify(with: entry.key)
        else { return .invalid }
        return .valid(teamId: jwt.claims.iss, issuedAt: jwt.claims.iat)
    }
}
