/// Verifies a user credential (a bearer token) and names the user it belongs to.
public protocol UserAuthenticator: Sendable {
    /// - Throws: ``UserAuthError`` 401 when the credential is not valid, 503 when it cannot be checked now.
    func userId(forBearer token: String) async throws(UserAuthError) -> String
}

/// Why a user credential was not accepted.
public struct UserAuthError: Error, Sendable, CustomStringConvertible {
    /// 401 (the credential is refused) or 503 (it cannot be checked now).
    public var status: Int
    public var code: String
    public var message: String
    /// For a 503: when to try again, in SECONDS.
    public var retryAfterSeconds: Int?

    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(code): \(message)" }
}
