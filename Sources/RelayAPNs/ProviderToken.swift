import APNsCore
import Foundation
import RelayCore
import RelayCrypto
import Synchronization

/// The APNs provider token (an ES256 JWT) for one signing key, shared by every request and connection.
///
/// Rules (Apple, "Establishing a token-based connection to APNs"): one token per key; APNs refuses an `iat`
/// older than one hour (403 ExpiredProviderToken) and answers 429 TooManyProviderTokenUpdates to a new token
/// within 20 minutes of the previous one. So a token is reused until it is ``refreshAge`` old (default 50
/// minutes, allowed 20...60 minutes), measured on the ``TimeSource``'s monotonic clock; `iat` comes from its
/// wall clock.
///
/// ``invalidate()`` (after a 403 ExpiredProviderToken) forces a new token only when that cannot earn a 429:
/// when the current token is at least 20 minutes old (monotonic), or when the wall clock says its `iat` is
/// an hour old or in the future (the clock was set since it was minted, so a fresh `iat` is what fixes it).
/// Otherwise the request is ignored and `false` returned: a token under 20 minutes old by our own clock is
/// not expired, and replacing it would trade a 403 for a 429.
///
/// With a ``RelayCore/ProviderTokenCache`` (relays sharing one database), the token is the one every instance
/// presents: this copy is used until it reaches ``refreshAge`` or is invalidated, and only then is the cache
/// asked, which hands out the stored token or lets one instance mint its successor. A token taken from the
/// cache is aged from its `iat`: its monotonic mint time is set back by how old the wall clock says it is,
/// so every instance renews it at the same age, give or take the skew between their clocks (a few seconds
/// with NTP, against the 10 minutes between the default refresh age and expiry).
public final class ProviderToken: Sendable {
    /// The shortest allowed ``refreshAge``: Apple's minimum time between token updates (20 minutes).
    public static let minimumRefreshAge: Duration = .seconds(APNsLimits.providerTokenMinRefreshSeconds)
    /// The longest allowed ``refreshAge``: APNs refuses older tokens (60 minutes).
    public static let maximumRefreshAge: Duration = .seconds(APNsLimits.providerTokenMaxAgeSeconds)
    /// The default ``refreshAge``: 50 minutes, as APNs libraries use.
    public static let defaultRefreshAge: Duration = .seconds(50 * 60)

    /// The 10-character Key ID (`kid`).
    public let keyId: String
    /// The 10-character Team ID (`iss`).
    public let teamId: String
    /// Age (monotonic) after which the next use mints a new token.
    public let refreshAge: Duration

    private let key: ES256Key
    private let timeSource: any TimeSource
    private let cache: (any ProviderTokenCache)?
    private let state = Mutex<State>(State())

    private struct State {
        var token: String?
        var mintedAt: Duration = .zero
        var issuedAt: Int = 0
        var forced = false
        var generation = 0
        /// The cache lookup in flight, which every caller that finds the token due awaits: one store round
        /// trip per renewal, not one per push in flight.
        var renewal: Task<String, any Error>?

        /// Keeps a new token, minted (or, from a cache, issued) at `mintedAt` on the monotonic clock.
        mutating func replace(with token: String, mintedAt: Duration, issuedAt: Int) {
            self = State(
                token: token,
                mintedAt: mintedAt,
                issuedAt: issuedAt,
                forced: false,
                generation: generation + 1
            )
        }
    }

    /// Uses an already loaded private key.
    /// - Parameters:
    ///   - refreshAge: must be within 20...60 minutes.
    /// - Throws: ``CryptoError`` `.invalidKey` when `key` is a public key or `refreshAge` is out of range.
    public init(
        key: ES256Key,
        keyId: String,
        teamId: String,
        refreshAge: Duration = ProviderToken.defaultRefreshAge,
        timeSource: any TimeSource = SystemTimeSource(),
        cache: (any ProviderTokenCache)? = nil
    ) throws(CryptoError) {
        guard key.isPrivate else { throw CryptoError(.invalidKey, "the provider token key must be a private key") }
        guard (Self.minimumRefreshAge...Self.maximumRefreshAge).contains(refreshAge) else {
            throw CryptoError(.invalidKey, "provider token refresh age must be within 20...60 minutes")
        }
        self.key = key
        self.keyId = keyId
        self.teamId = teamId
        self.refreshAge = refreshAge
        self.timeSource = timeSource
        self.cache = cache
    }

    /// Loads the key from PEM text (`-----BEGIN PRIVATE KEY-----`, the .p8 file's content) or, when `key`
    /// is not PEM, from the file at that path.
    /// - Throws: ``CryptoError`` `.invalidKey` when the file cannot be read or holds no P-256 private key.
    public convenience init(
        keyPEMOrPath key: String,
        keyId: String,
        teamId: String,
        refreshAge: Duration = ProviderToken.defaultRefreshAge,
        timeSource: any TimeSource = SystemTimeSource(),
        cache: (any ProviderTokenCache)? = nil
    ) throws(CryptoError) {
        let pem: String
        if key.contains("-----BEGIN") {
            pem = key
        } else {
            do { pem = try String(contentsOfFile: key, encoding: .utf8) } catch {
                throw CryptoError(.invalidKey, "cannot read provider token key file \(key)")
            }
        }
        try self.init(
            key: ES256Key(privateKeyPEM: pem),
            keyId: keyId,
            teamId: teamId,
            refreshAge: refreshAge,
            timeSource: timeSource,
            cache: cache
        )
    }

    /// The current token in compact form (`header.claims.signature`, base64url), minting one (or, with a
    /// cache, taking the shared one) when there is none, it is ``refreshAge`` old, or ``invalidate()`` was
    /// honoured.
    /// - Throws: ``CryptoError`` when signing fails; the cache's error when it cannot be read or written.
    public func current() async throws -> String {
        switch try due() {
        case .fresh(let token): return token
        case .renewing(let renewal): return try await renewal.value
        }
    }

    /// ``current()`` when it needs no wait: the token, minted here if due; nil while a renewal from the cache
    /// is in flight (it is started then, when none is).
    /// - Throws: ``CryptoError`` when signing fails.
    public func currentWithoutWaiting() throws -> String? {
        switch try due() {
        case .fresh(let token): token
        case .renewing: nil
        }
    }

    /// The token to use, minted here when it is due and there is no cache; the renewal to wait for when
    /// it is due from the cache (started when none is in flight).
    private func due() throws(CryptoError) -> Due {
        guard let cache else { return .fresh(try mintLocally()) }
        return state.withLock { state -> Due in
            if let token = state.token, !state.forced, timeSource.monotonic - state.mintedAt < refreshAge {
                return .fresh(token)
            }
            if let renewal = state.renewal { return .renewing(renewal) }
            let replacing = state.token
            let renewal = Task { try await self.renew(replacing: replacing, from: cache) }
            state.renewal = renewal
            return .renewing(renewal)
        }
    }

    /// What ``current()`` finds: a token to use, or the renewal to wait for.
    private enum Due {
        case fresh(String)
        case renewing(Task<String, any Error>)
    }

    /// Takes the shared token from the cache (which mints one under its lock when `replacing` is what it
    /// holds or it is too old) and keeps it; ends the renewal either way.
    private func renew(replacing: String?, from cache: any ProviderTokenCache) async throws -> String {
        let shared: IssuedProviderToken
        do {
            shared = try await cache.sharedProviderToken(
                teamId: teamId,
                keyId: keyId,
                replacing: replacing,
                freshAfter: timeSource.now - refreshAge.timeInterval,
                signedByCaller: { [key] token in (try? JSONWebToken(parsing: token))?.verify(with: key) ?? false },
                mint: { [key, keyId, teamId, timeSource] in
                    let issuedAt = Int(timeSource.now.timeIntervalSince1970)
                    let jwt = try JSONWebToken.sign(keyId: keyId, teamId: teamId, issuedAt: issuedAt, key: key)
                    return IssuedProviderToken(token: jwt.compact, issuedAt: issuedAt)
                }
            )
        } catch {
            state.withLock { $0.renewal = nil }
            throw error
        }
        return adopt(shared)
    }

    /// Mints and keeps a token of this process's own (no cache).
    private func mintLocally() throws(CryptoError) -> String {
        try state.withLock { (state) throws(CryptoError) -> String in
            if let token = state.token, !state.forced, timeSource.monotonic - state.mintedAt < refreshAge {
                return token
            }
            let issuedAt = Int(timeSource.now.timeIntervalSince1970)
            let token = try JSONWebToken.sign(keyId: keyId, teamId: teamId, issuedAt: issuedAt, key: key).compact
            state.replace(with: token, mintedAt: timeSource.monotonic, issuedAt: issuedAt)
            return token
        }
    }

    /// Keeps the cache's token unless a newer one was adopted meanwhile; returns the token now kept. Its
    /// monotonic mint time is set back by its wall-clock age (never forward: a future `iat` counts as new).
    private func adopt(_ shared: IssuedProviderToken) -> String {
        state.withLock { state in
            state.renewal = nil
            guard state.token != shared.token else {
                state.forced = false
                return shared.token
            }
            if let kept = state.token, !state.forced, state.issuedAt > shared.issuedAt { return kept }
            let wallAge = max(0, Int(timeSource.now.timeIntervalSince1970) - shared.issuedAt)
            state.replace(
                with: shared.token,
                mintedAt: timeSource.monotonic - .seconds(wallAge),
                issuedAt: shared.issuedAt
            )
            return shared.token
        }
    }

    /// The `authorization` header value: `bearer <JWT>`.
    /// - Throws: as ``current()``.
    public func authorization() async throws -> String { Self.authorization(try await current()) }

    /// The `authorization` header value that carries `token`.
    public static func authorization(_ token: String) -> String { "bearer " + token }

    /// Asks for a new token on the next use, after APNs answered 403 ExpiredProviderToken.
    /// - Returns: true when the next ``current()`` mints a new token; false when the request was ignored
    ///   because the current token is under 20 minutes old and the wall clock agrees (see the type's docs).
    @discardableResult
    public func invalidate() -> Bool {
        state.withLock { state in
            guard state.token != nil else { return true }
            let monotonicAge = timeSource.monotonic - state.mintedAt
            let wallAge = Int(timeSource.now.timeIntervalSince1970) - state.issuedAt
            let honoured =
                monotonicAge >= Self.minimumRefreshAge || wallAge >= APNsLimits.providerTokenMaxAgeSeconds
                || wallAge < 0
            if honoured { state.forced = true }
            return honoured
        }
    }

    /// How many tokens this instance has used so far (1 after the first use): minted, or taken from the cache.
    public var generation: Int { state.withLock { $0.generation } }
}
