import RelayCore

/// Verifies a user credential (a bearer token) and names the user it belongs to.
public protocol UserAuthenticator: Sendable {
    /// - Throws: ``UserAuthError`` 401 when the credential is not valid, 503 when it cannot be checked now.
    func userId(forBearer token: String) async throws(UserAuthError) -> String

    /// The same check for a client in `range` (its /24 or /64), for checks that share something among
    /// clients fairly.
    func userId(forBearer token: String, from range: IPNetwork) async throws(UserAuthError) -> String

    /// The user of a credential accepted before and still cached, without asking anyone; nil otherwise
    /// (also for a cached refusal: that goes through ``userId(forBearer:)`` and counts as a failure).
    func cachedUserId(forBearer token: String) async -> String?

    /// Whether a check asks no one per credential: what it may fetch (a JWKS document) is fetched on a
    /// schedule of its own whatever the credentials. Such a check is made even for a client over its failed
    /// checks (only its failure is refused, counted as one), so a stranger's junk from a shared address (a
    /// carrier's NAT) does not keep that address's users out. One that asks per credential (an auth
    /// webhook) is refused before it is made.
    var checksLocally: Bool { get }
}

extension UserAuthenticator {
    /// The range makes no difference: ``userId(forBearer:)``.
    public func userId(forBearer token: String, from range: IPNetwork) async throws(UserAuthError) -> String {
        try await userId(forBearer: token)
    }

    /// No cache: every check goes through ``userId(forBearer:)``.
    public func cachedUserId(forBearer token: String) async -> String? { nil }

    /// A check asks someone per credential unless the authenticator says otherwise.
    public var checksLocally: Bool { false }
}
