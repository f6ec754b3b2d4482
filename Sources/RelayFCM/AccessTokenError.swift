/// The token endpoint did not give an access token: it refused the assertion (`invalid_grant`: a wrong or
/// revoked key, a clock far off) or answered something unusable. Sends that needed the token throw it; the
/// next send asks again.
public struct AccessTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status of the answer.
    public var status: Int
    /// The OAuth 2.0 `error` (RFC 6749 §5.2), e.g. `invalid_grant`; nil when the answer had none.
    public var error: String?
    /// `error_description`, or what was wrong with the answer; never holds the assertion or a token.
    public var message: String

    public init(status: Int, error: String?, message: String) {
        self.status = status
        self.error = error
        self.message = message
    }

    /// True when asking again cannot help until the operator acts (a 4xx refusal: key, account, scope).
    public var isConfigurationProblem: Bool { (400...499).contains(status) && status != 429 }

    public var description: String {
        "access token request answered \(status)" + (error.map { " \($0)" } ?? "") + ": \(message)"
    }
}
