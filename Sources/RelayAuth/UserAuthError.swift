import RelayCrypto

/// Why a user credential was not accepted: 401 with a code saying what was wrong with it, or 503
/// `auth_unavailable` (with ``retryAfterSeconds``) when it cannot be checked now. Messages never hold the
/// token. The code and message are for logs and the relay's own rule of what a client is told
/// (``signatureVerified``): a client hears them only about a token that proved to be the app's.
public struct UserAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401 (the credential is refused) or 503 (it cannot be checked now).
    public var status: Int
    /// The API's `error.code`: a ``JWTError/Code`` for a JWT, ``credentialRefused`` or ``authUnavailable``.
    public var code: String
    public var message: String
    /// For a 503: when to try again, in SECONDS.
    public var retryAfterSeconds: Int?
    /// Whether one of the app's keys verified the token's signature before it was refused (an expired JWT
    /// of the app's, one for another audience): only then does the refusal say more than that the
    /// credential is not valid.
    public var signatureVerified: Bool

    public init(
        status: Int,
        code: String,
        message: String,
        retryAfterSeconds: Int? = nil,
        signatureVerified: Bool = false
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.signatureVerified = signatureVerified
    }

    /// The Ditto auth webhook refused the token (`authenticate: false`, or a 4xx).
    public static let credentialRefused = "credential_refused"
    /// The token cannot be checked now: the webhook or the JWKS URL is down, slow or answered nonsense.
    public static let authUnavailable = "auth_unavailable"

    /// A 401 for a JWT the rules refuse, with the rule's code.
    /// - Parameter signatureVerified: whether the refusal came after one of the app's keys verified it.
    public init(_ error: JWTError, signatureVerified: Bool = false) {
        self.init(
            status: 401,
            code: error.code.description,
            message: error.message,
            signatureVerified: signatureVerified
        )
    }

    /// A 401 `credential_refused`.
    public static func refused(_ message: String) -> UserAuthError {
        UserAuthError(status: 401, code: credentialRefused, message: message)
    }

    /// A 503 `auth_unavailable` to try again after `retryAfterSeconds` (at least 1).
    public static func unavailable(_ message: String, retryAfterSeconds: Int) -> UserAuthError {
        UserAuthError(
            status: 503,
            code: authUnavailable,
            message: message,
            retryAfterSeconds: max(1, retryAfterSeconds)
        )
    }

    public var description: String { "\(status) \(code): \(message)" }
}
