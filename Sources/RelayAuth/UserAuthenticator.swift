/// Verifies a user credential (a bearer token) and names the user it belongs to.
public protocol UserAuthenticator: Sendable {
    /// - Throws: ``UserAuthError`` 401 when the credential is not valid, 503 when it cannot be checked now.
    func userId(forBearer token: String) async throws(UserAuthError) -> String
}
