/// A request that got no answer: the URL, the connection, TLS, the deadline, the stream or this client
/// failed. Distinct from the server's answer, whatever its status, which a transport's client returns (the
/// APNs client as an `APNsResponse`). What ``CurlMultiDriver`` and ``OutboundHTTP`` (feedback POSTs,
/// readiness probes) throw.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed. Open: more codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ description: String) { self.description = description }
        /// The URL is malformed or not `http`/`https` (curl 1, 3).
        public static let invalidURL = Code("invalidURL")
        /// No connection: refused, unreachable, name not resolved (curl 6, 7).
        public static let connect = Code("connect")
        /// The TLS handshake or certificate check failed (curl 35, 58, 60, 77, 98, ...).
        public static let tls = Code("tls")
        /// The connect timeout or the request deadline passed (curl 28, or still queued at its deadline).
        public static let timeout = Code("timeout")
        /// The stream or connection broke after the request went out: RST_STREAM, connection closed, no
        /// answer (curl 16, 18, 52, 55, 56, 92). The request may have been processed.
        public static let reset = Code("reset")
        /// The server refused the stream (REFUSED_STREAM, or above a GOAWAY's last-stream-id): not
        /// processed, safe to resend (RFC 9113 §8.7). Returned only after the automatic resend also failed.
        public static let refused = Code("refused")
        /// This client is shut down (or shutting down) and took no new request.
        public static let shutdown = Code("shutdown")
        /// Every address the host resolved to is one the client may not connect to (not public, for a URL a
        /// user gave: ``CurlCommonOptions/UntrustedURLs``); nothing was sent.
        public static let addressRefused = Code("addressRefused")
        /// The answer's body was longer than the client reads (``CurlCommonOptions/UntrustedURLs``); the
        /// transfer was aborted after the request went out.
        public static let responseTooLarge = Code("responseTooLarge")
        /// Anything else libcurl reported.
        public static let other = Code("other")
    }

    public var code: Code
    /// libcurl's `CURLcode` when the failure came from libcurl, nil otherwise.
    public var curlCode: Int?
    /// libcurl's error text (or our own); never holds a full device token.
    public var message: String

    public init(code: Code, curlCode: Int? = nil, message: String) {
        self.code = code
        self.curlCode = curlCode
        self.message = message
    }

    public var description: String {
        "transport error \(code)" + (curlCode.map { " (curl \($0))" } ?? "") + ": \(message)"
    }
}
