import MockHTTP2
import RelayCore

/// How a ``MockFCMServer`` listens, which service accounts it trusts, and how it records.
///
/// Not `Codable`: it holds keys, a time source and a callback. The CLI builds one from its flags.
public struct MockFCMConfiguration: Sendable {
    /// TLS settings: with them the server speaks HTTP/2 over TLS 1.2+ with ALPN `h2`; without them,
    /// cleartext h2c with prior knowledge.
    public typealias TLS = ServerTLS

    /// The path of the token endpoint: a service account's `token_uri` is `<base URL>/token`.
    public static let tokenPath = "/token"

    /// Address to listen on (numeric IPv4/IPv6 or a name `getaddrinfo` resolves). Default `127.0.0.1`.
    public var host: String
    /// TCP port; 0 (default) picks an ephemeral port, see ``MockFCMServer/port``.
    public var port: Int
    /// TLS settings, or nil (default) for cleartext h2c.
    public var tls: TLS?
    /// The service accounts whose assertions get access tokens. Default none: every assertion is refused
    /// (`invalid_grant`).
    public var accounts: [MockFCMAccount]
    /// `expires_in` of the access tokens issued. Default 3599 s, as Google's.
    public var accessTokenLifetime: Duration
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised. Default 1000.
    public var maxConcurrentStreams: Int
    /// Clock for the assertions' `iat`/`exp`, the access tokens' expiry, and the time recorded. Default
    /// ``SystemTimeSource``.
    public var timeSource: any TimeSource
    /// Keep answered messages in memory for ``MockFCMServer/requests``. Default true.
    public var recordInMemory: Bool
    /// At most this many messages are kept in memory; older ones are dropped first. Default 100 000.
    public var maxRecordedRequests: Int
    /// When set, each answered message is appended to this file as one JSON line (see ``RecordedMessage``).
    public var recordFile: String?
    /// Script in force at start; change it later with ``MockFCMServer/script``.
    public var script: MockFCMScript
    /// Called on the server's thread for every message answered 200, after recording. Keep it short; never
    /// print the full registration token (use ``RecordedMessage/tokenSuffix``).
    public var onAccepted: (@Sendable (RecordedMessage) -> Void)?

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        tls: TLS? = nil,
        accounts: [MockFCMAccount] = [],
        accessTokenLifetime: Duration = .seconds(3599),
        maxConcurrentStreams: Int = 1000,
        timeSource: any TimeSource = SystemTimeSource(),
        recordInMemory: Bool = true,
        maxRecordedRequests: Int = 100_000,
        recordFile: String? = nil,
        script: MockFCMScript = MockFCMScript(),
        onAccepted: (@Sendable (RecordedMessage) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.accounts = accounts
        self.accessTokenLifetime = accessTokenLifetime
        self.maxConcurrentStreams = maxConcurrentStreams
        self.timeSource = timeSource
        self.recordInMemory = recordInMemory
        self.maxRecordedRequests = maxRecordedRequests
        self.recordFile = recordFile
        self.script = script
        self.onAccepted = onAccepted
    }
}

extension MockFCMConfiguration: MockServerSettings {
    package var serviceProblem: String? {
        accessTokenLifetime > .zero ? nil : "accessTokenLifetime must be positive"
    }
}
