import RelayCore

/// How an ``APNsClient`` connects: where, with which credentials, and its limits.
public struct APNsClientConfiguration: Sendable {
    /// Where requests go.
    public enum Endpoint: Sendable, Equatable {
        /// `https://api.push.apple.com:443`.
        case production
        /// `https://api.sandbox.push.apple.com:443`.
        case sandbox
        /// Any base URL without a trailing slash, e.g. the mock's `https://127.0.0.1:PORT` (HTTP/2 over TLS,
        /// verified against `caFile`, a PEM bundle, or the system store when nil) or `http://127.0.0.1:PORT`
        /// (h2c with prior knowledge).
        case custom(baseURL: String, caFile: String?)

        /// The base URL requests go to, e.g. `https://api.push.apple.com:443`.
        public var baseURL: String {
            switch self {
            case .production: APNsEnvironment.production.baseURL
            case .sandbox: APNsEnvironment.sandbox.baseURL
            case .custom(let baseURL, _): baseURL
            }
        }

        /// True for an `http://` base URL: HTTP/2 without TLS (h2c prior knowledge).
        public var isCleartext: Bool { baseURL.lowercased().hasPrefix("http://") }
    }

    /// How the client proves who it is (Apple, "Establishing a token-based connection to APNs" /
    /// "Establishing a certificate-based connection to APNs").
    public enum Authentication: Sendable {
        /// Token auth: `key` is the .p8 content (PEM) or a path to it; `keyId` and `teamId` are Apple's
        /// 10-character ids. The client mints its own ``ProviderToken`` on the configuration's time source.
        case token(key: String, keyId: String, teamId: String)
        /// Token auth with a token shared by several clients (one token per key, Apple's rule).
        case providerToken(ProviderToken)
        /// Certificate auth: `certificatePath` is a PEM certificate (with `keyPath`, a PEM key, or the key in
        /// the same file when nil) or a PKCS#12 bundle (`.p12`/`.pfx`); `password` decrypts the key or bundle.
        case certificate(certificatePath: String, keyPath: String?, password: String?)
    }

    public var endpoint: Endpoint
    public var authentication: Authentication
    /// Longest a TCP+TLS connect may take. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// Longest one `send` may take, queueing included; it then throws ``TransportError/Code/timeout``.
    /// Default 30 s.
    public var requestTimeout: Duration = .seconds(30)
    /// Most requests handed to one connection's libcurl at once; the rest wait in the client's queue.
    /// Default 1000. libcurl further keeps each connection within the server's SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxInFlight: Int = 1000
    /// HTTP/2 connections to the endpoint, each on its own thread, opened on first use and kept (APNs treats
    /// rapid connection churn as abuse; Apple advises several connections for volume, "Sending notification
    /// requests to APNs"). Default 2.
    public var connections: Int = 2
    /// Idle time after which a connection is kept alive with TCP keep-alive probes at that interval; nil
    /// disables them. Default 60 s.
    public var pingInterval: Duration? = .seconds(60)
    /// Age at which the provider token is replaced (20...60 minutes). Default 50 minutes.
    public var tokenRefreshAge: Duration = ProviderToken.defaultRefreshAge
    /// Clocks for provider-token age and `iat` (transport deadlines use the real monotonic clock, as libcurl
    /// does).
    public var timeSource: any TimeSource = SystemTimeSource()
    /// Where the client logs (connection problems, token refreshes). Default: disabled.
    public var logger: Logger = .disabled("apns")

    public init(endpoint: Endpoint, authentication: Authentication) {
        self.endpoint = endpoint
        self.authentication = authentication
    }

    /// Every problem with the values, empty when they are usable; zero or negative limits are refused.
    public func problems() -> [String] {
        var problems: [String] = []
        let base = endpoint.baseURL.lowercased()
        if !base.hasPrefix("https://") && !base.hasPrefix("http://") {
            problems.append("endpoint base URL must start with https:// or http://")
        }
        if base.hasSuffix("/") { problems.append("endpoint base URL must not end with /") }
        if connectTimeout <= .zero { problems.append("connectTimeout must be positive") }
        if requestTimeout <= .zero { problems.append("requestTimeout must be positive") }
        if maxInFlight < 1 { problems.append("maxInFlight must be at least 1") }
        if connections < 1 { problems.append("connections must be at least 1") }
        if let pingInterval, pingInterval <= .zero { problems.append("pingInterval must be positive or nil") }
        if !(ProviderToken.minimumRefreshAge...ProviderToken.maximumRefreshAge).contains(tokenRefreshAge) {
            problems.append("tokenRefreshAge must be within 20...60 minutes")
        }
        if case .token(_, let keyId, let teamId) = authentication, keyId.isEmpty || teamId.isEmpty {
            problems.append("token authentication needs a key id and a team id")
        }
        return problems
    }
}
