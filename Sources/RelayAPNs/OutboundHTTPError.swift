/// A one-shot request of ``OutboundHTTP`` that got no HTTP answer: bad URL, no connection, TLS, timeout.
public struct OutboundHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed. Open: more codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ description: String) { self.description = description }
        /// The URL is malformed or not `http`/`https` (curl 1, 3).
        public static let invalidURL = Code("invalidURL")
        /// No connection: refused, unreachable, name not resolved (curl 6, 7).
        public static let connect = Code("connect")
        /// The TLS handshake or certificate check failed (curl 35, 58, 60, 77, ...).
        public static let tls = Code("tls")
        /// The connect timeout or the total timeout passed (curl 28).
        public static let timeout = Code("timeout")
        /// Anything else libcurl reported (the connection broke, the answer was not HTTP, ...).
        public static let other = Code("other")
    }

    public var code: Code
    /// libcurl's `CURLcode`, nil when the failure came from elsewhere.
    public var curlCode: Int?
    /// libcurl's error text: names the host and port at most, never a body or a header value.
    public var message: String

    public init(code: Code, curlCode: Int? = nil, message: String) {
        self.code = code
        self.curlCode = curlCode
        self.message = message
    }

    public var description: String { "\(code)" + (curlCode.map { " (curl \($0))" } ?? "") + ": \(message)" }
}
