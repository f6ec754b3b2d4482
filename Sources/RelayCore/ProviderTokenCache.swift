import Foundation

/// Where relays that share a database keep the APNs provider token of each signing key, so every instance
/// presents ONE token per (Team ID, Key ID) and APNs never sees two instances' tokens replace each other
/// (429 TooManyProviderTokenUpdates; Apple, "Establishing a token-based connection to APNs").
///
/// The store is asked only when an instance's own copy is due for renewal or was invalidated; each push
/// uses the in-process copy. The token is a bearer secret: implementations never log it.
public protocol ProviderTokenCache: Sendable {
    /// The shared token of (`teamId`, `keyId`), minted with `mint` and stored when there is none to use.
    ///
    /// The stored token is used as it is when it is not `replacing`, was issued at or after `freshAfter` (its
    /// `iat`, the minting instance's wall clock, compared with the caller's) and `signedByCaller` takes it
    /// (the caller's key signed it: a token another key minted under the same ids, one APNs refuses as the
    /// wrong key's, is replaced, not handed on to every app and relay that names those ids). Otherwise
    /// `mint` runs under a lock of the key's row, so callers renewing at once mint one token: the others
    /// wait for the lock, then find the new token fresh and not the one they replace.
    /// - Parameters:
    ///   - replacing: the token the caller is done with (it reached its refresh age, or APNs called it
    ///     expired), or nil when the caller has none.
    ///   - freshAfter: the oldest `iat` still used without renewal (the caller's now minus its refresh age).
    ///   - signedByCaller: whether a stored token verifies under the caller's key.
    ///   - mint: signs a new token; called at most once, inside the store's transaction.
    /// - Throws: the store's error, or what `mint` throws (then nothing is stored).
    func sharedProviderToken(
        teamId: String,
        keyId: String,
        replacing: String?,
        freshAfter: Date,
        signedByCaller: @Sendable (String) -> Bool,
        mint: @Sendable () throws -> IssuedProviderToken
    ) async throws -> IssuedProviderToken
}

/// A provider token as kept in a ``ProviderTokenCache``: the compact JWT and its `iat`.
/// Its description leaves the token out.
public struct IssuedProviderToken: Sendable, Equatable, CustomStringConvertible {
    /// The compact JWT (`header.claims.signature`): a bearer secret.
    public var token: String
    /// Its `iat` claim: UNIX epoch SECONDS of the minting instance's wall clock.
    public var issuedAt: Int

    public init(token: String, issuedAt: Int) {
        self.token = token
        self.issuedAt = issuedAt
    }

    public var description: String { "IssuedProviderToken(issuedAt: \(issuedAt))" }
}
