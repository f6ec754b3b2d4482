import MockHTTP2
import RelayCore
import RelayCrypto

/// How a ``MockAPNsServer`` listens, authenticates and records.
///
/// Not `Codable`: it holds keys, a time source and a callback. The CLI builds one from its flags.
public struct MockAPNsConfiguration: Sendable {
    /// TLS settings: with them the server speaks HTTP/2 over TLS 1.2+ with ALPN `h2`; without them, cleartext
    /// h2c with prior knowledge (RFC 9113 §3.3). A connection whose client certificate verified against
    /// `clientCAPath` is certificate-authenticated and needs no provider token (Apple, "Establishing a
    /// certificate-based connection to APNs").
    public typealias TLS = ServerTLS

    /// How requests must authenticate.
    public enum Authentication: String, Sendable, Codable {
        /// `authorization: bearer <JWT>` checked against ``MockAPNsConfiguration/providerKeys`` (Apple,
        /// "Establishing a token-based connection to APNs"); a verified client certificate also passes.
        case providerToken
        /// No authentication checks at all (benchmarks, demos). `apns-topic` is still required.
        case disabled
    }

    /// Address to listen on (numeric IPv4/IPv6 or a name `getaddrinfo` resolves). Default `127.0.0.1`.
    public var host: String
    /// TCP port; 0 (default) picks an ephemeral port, see ``MockAPNsServer/port``.
    public var port: Int
    /// TLS settings, or nil (default) for cleartext h2c.
    public var tls: TLS?
    /// Default ``Authentication/providerToken``.
    public var authentication: Authentication
    /// Public keys that verify provider tokens, by Key ID (`kid`), with the Team ID (`iss`) each belongs to.
    /// Default empty (every token is InvalidProviderToken).
    public var providerKeys: [String: (teamId: String, key: ES256Key)]
    /// Bundle ids this server accepts in `apns-topic` (without push-type suffix); nil (default) accepts any.
    /// Topic rule: a push type whose topic needs a suffix (``PushType/topicSuffix``: `.voip`, `.complication`,
    /// ...) with a topic lacking it -> 400 BadTopic; else, with this set, the topic minus that suffix not in
    /// it -> 400 TopicDisallowed.
    public var allowedTopics: Set<String>?
    /// `.sandbox` adds an `apns-unique-id` header to 200 answers as Apple's sandbox does. Default `.production`.
    public var environment: APNsEnvironment
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised once a connection is authenticated (from the start with
    /// certificate auth or ``Authentication/disabled``; 1 before that with token auth). Default 1000.
    public var maxConcurrentStreams: Int
    /// Clock for `iat` age (wall clock `now`) and the 20-minute token-update window (`monotonic`), and the
    /// time recorded per request. Default ``SystemTimeSource``.
    public var timeSource: any TimeSource
    /// Keep answered requests in memory for ``MockAPNsServer/requests``. Default true; turn off for
    /// benchmarks so memory stays flat.
    public var recordInMemory: Bool
    /// At most this many requests are kept in memory; older ones are dropped first. Default 100 000.
    public var maxRecordedRequests: Int
    /// When set, each answered request is appended to this file as one JSON line (see ``RecordedRequest``).
    public var recordFile: String?
    /// Script in force at start; change it later with ``MockAPNsServer/script``.
    public var script: MockScript
    /// Called on the server's thread for every request answered 200, after recording. Keep it short; never
    /// print the full device token (use `RecordedRequest.deviceTokenSuffix`).
    public var onAccepted: (@Sendable (RecordedRequest) -> Void)?
    /// Called on the server's thread for every request answered otherwise (a refusal, a scripted error),
    /// after recording; the same care.
    public var onRefused: (@Sendable (RecordedRequest) -> Void)?

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        tls: TLS? = nil,
        authentication: Authentication = .providerToken,
        providerKeys: [String: (teamId: String, key: ES256Key)] = [:],
        allowedTopics: Set<String>? = nil,
        environment: APNsEnvironment = .production,
        maxConcurrentStreams: Int = 1000,
        timeSource: any TimeSource = SystemTimeSource(),
        recordInMemory: Bool = true,
        maxRecordedRequests: Int = 100_000,
        recordFile: String? = nil,
        script: MockScript = MockScript(),
        onAccepted: (@Sendable (RecordedRequest) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.authentication = authentication
        self.providerKeys = providerKeys
        self.allowedTopics = allowedTopics
        self.environment = environment
        self.maxConcurrentStreams = maxConcurrentStreams
        self.timeSource = timeSource
        self.recordInMemory = recordInMemory
        self.maxRecordedRequests = maxRecordedRequests
        self.recordFile = recordFile
        self.script = script
        self.onAccepted = onAccepted
    }
}

extension MockAPNsConfiguration: MockServerSettings {}
