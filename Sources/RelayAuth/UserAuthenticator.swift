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
}

extension UserAuthenticator {
    /// The range makes no difference: ``userId(forBearer:)``.
    public func userId(forBearer token: String, from range: IPNetwork) async throws(UserAuthError) -> String {
        try await userId(forBearer: token)
    }

    /// No cache: every check goes through ``userId(forBearer:)``.
    public func cachedUserId(forBearer token: String) async -> String? { nil }
}
