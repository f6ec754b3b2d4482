import FCMCore
import RelayCore

/// How an ``FCMClient`` connects: where, as which service account, to which project, and its limits.
public struct FCMClientConfiguration: Sendable {
    /// Where messages go.
    public enum Endpoint: Sendable, Equatable {
        /// `https://fcm.googleapis.com`.
        case production
        /// Any base URL without a trailing slash, e.g. the mock's `https://127.0.0.1:PORT` (HTTP/2 over TLS,
        /// verified against `caFile`, a PEM bundle, or the system store when nil) or `http://127.0.0.1:PORT`
        /// (h2c with prior knowledge). `caFile` also verifies the service account's `token_uri`.
        case custom(baseURL: String, caFile: String?)

        /// The base URL messages go to, e.g. `https://fcm.googleapis.com`.
        public var baseURL: String {
            switch self {
            case .production: FCMLimits.productionBaseURL
            case .custom(let baseURL, _): baseURL
            }
        }

        /// The CA bundle of a custom endpoint; nil for the system store.
        public var caFile: String? {
            if case .custom(_, let caFile) = self { return caFile }
            return nil
        }
    }

    public var endpoint: Endpoint
    /// The account whose access tokens authorize every send (its key signs the assertions).
    public var serviceAccount: FCMServiceAccount
    /// The project messages are sent to; nil (default) is the service account's `project_id`.
    public var projectId: String?
    /// Longest a TCP+TLS connect may take. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// Longest one send may take, queueing included: its waits for an access token, its request and its one
    /// resend after a 401 together; then the send throws `TransportError` `.timeout`. An access-token
    /// exchange, which the sends waiting for it share, may take as long. Default 30 s.
    public var requestTimeout: Duration = .seconds(30)
    /// Most requests handed to libcurl at once; the rest wait in the client's queue. Default 1000. libcurl
    /// further keeps each connection within the server's SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxInFlight: Int = 1000
    /// Most connections to the FCM endpoint (`CURLMOPT_MAX_HOST_CONNECTIONS`); the token endpoint gets one
    /// more of its own. Default 1: one HTTP/2 connection multiplexes every send.
    public var maxConnections: Int = 1
    /// Idle time after which connections are kept alive with TCP keep-alive probes; nil disables them.
    /// Default 60 s.
    public var pingInterval: Duration? = .seconds(60)
    /// How long before its expiry an access token is replaced (never later than half its life). Default
    /// 5 minutes.
    public var accessTokenRenewalMargin: Duration = .seconds(300)
    /// Clocks for access-token age (`monotonic`) and the assertions' `iat`/`exp` (`now`); transport deadlines
    /// use the real monotonic clock, as libcurl does.
    public var timeSource: any TimeSource = SystemTimeSource()
    /// Where the client logs (access-token renewals, transport problems). Default: disabled.
    public var logger: Logger = .disabled("fcm")

    public init(endpoint: Endpoint, serviceAccount: FCMServiceAccount, projectId: String? = nil) {
        self.endpoint = endpoint
        self.serviceAccount = serviceAccount
        self.projectId = projectId
    }

    /// The project messages are sent to: ``projectId`` or the service account's.
    public var effectiveProjectId: String { projectId ?? serviceAccount.projectId }

    /// Every problem with the values, empty when they are usable; zero or negative limits are refused.
    public func problems() -> [String] {
        var problems = serviceAccount.problems().map { "service account: " + $0 }
        let base = endpoint.baseURL.lowercased()
        if !base.hasPrefix("https://") && !base.hasPrefix("http://") {
            problems.append("endpoint base URL must start with https:// or http://")
        }
        if base.hasSuffix("/") { problems.append("endpoint base URL must not end with /") }
        if let projectId, !FCMServiceAccount.isValidProjectId(projectId) {
            problems.append("projectId '\(projectId)' is not a project id")
        }
        if connectTimeout <= .zero { problems.append("connectTimeout must be positive") }
        if requestTimeout <= .zero { problems.append("requestTimeout must be positive") }
        if maxInFlight < 1 { problems.append("maxInFlight must be at least 1") }
        if maxConnections < 1 { problems.append("maxConnections must be at least 1") }
        if let pingInterval, pingInterval <= .zero { problems.append("pingInterval must be positive or nil") }
        if accessTokenRenewalMargin < .zero { problems.append("accessTokenRenewalMargin must not be negative") }
        return problems
    }
}
