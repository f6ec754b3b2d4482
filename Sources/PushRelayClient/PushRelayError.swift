import Foundation

/// A call to the relay that did not succeed: the relay's answer (HTTP status and its
/// `{"error":{"code","message"}}`), or why there was none.
public struct PushRelayError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: the relay's error code (`invalid_field`, `unauthorized`, …) or one of the client's
    /// own below. Open, so codes the relay adds need no new release.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No answer: the connection failed or timed out on every attempt (``PushRelayError/cause`` holds
        /// the last `URLError`).
        public static let network = Code(rawValue: "network")
        /// The credential closure threw (``PushRelayError/cause``).
        public static let credentialUnavailable = Code(rawValue: "credential_unavailable")
        /// The client's base URL is not an `http` or `https` URL with a host.
        public static let invalidBaseURL = Code(rawValue: "invalid_base_url")
        /// An answer that is not the relay's: not HTTP, an error status without the relay's error body, or a
        /// success body that does not decode.
        public static let unexpectedResponse = Code(rawValue: "unexpected_response")
    }

    public var code: Code
    public var message: String
    /// The HTTP status of the relay's answer; nil when there was none.
    public var status: Int?
    /// The answer's `Retry-After` in seconds, when it had one: the call ends without waiting when it is
    /// longer than ``PushRelayClient/RetryPolicy/maxDelay``, so the app may try again that much later.
    public var retryAfter: TimeInterval?
    /// The underlying error, for ``Code-swift.struct/network`` and
    /// ``Code-swift.struct/credentialUnavailable``.
    public var cause: (any Error)?

    public init(
        code: Code,
        message: String,
        status: Int? = nil,
        retryAfter: TimeInterval? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.cause = cause
    }

    public var description: String {
        let status = status.map { "HTTP \($0) " } ?? ""
        return "\(status)\(code): \(message)"
    }
}
