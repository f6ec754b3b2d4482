import MockHTTP2
import RelayCore

/// How a ``MockWebPushServer`` listens, where it keeps the subscriptions it makes, and how it records.
///
/// Not `Codable`: it holds a time source and a callback. The CLI builds one from its flags.
public struct MockWebPushConfiguration: Sendable {
    /// TLS settings: with them the server speaks HTTP/2 over TLS 1.2+ with ALPN `h2`; without them,
    /// cleartext h2c with prior knowledge.
    public typealias TLS = ServerTLS

    /// Address to listen on (numeric IPv4/IPv6 or a name `getaddrinfo` resolves). Default `127.0.0.1`.
    public var host: String
    /// TCP port; 0 (default) picks an ephemeral port, see ``MockServer/port``.
    public var port: Int
    /// TLS settings, or nil (default) for cleartext h2c.
    public var tls: TLS?
    /// A directory where each subscription made is kept as `<id>.json` (mode 0600: it holds the private key
    /// and auth secret), so that another process (the CLI's `--new-subscription`, another mock) can make
    /// subscriptions this one opens; an id not held in memory is looked up there. Nil (default): in memory
    /// only.
    public var subscriptionsDirectory: String?
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised. Default 1000.
    public var maxConcurrentStreams: Int
    /// Clock for the VAPID `exp` checks and the time recorded. Default ``SystemTimeSource``.
    public var timeSource: any TimeSource
    /// Keep answered pushes in memory for ``MockServer/requests``. Default true.
    public var recordInMemory: Bool
    /// At most this many pushes are kept in memory; older ones are dropped first. Default 100 000.
    public var maxRecordedRequests: Int
    /// When set, each answered push is appended to this file as one JSON line (see ``RecordedPush``).
    public var recordFile: String?
    /// Script in force at start; change it later with ``MockServer/script``.
    public var script: MockWebPushScript
    /// Called on the server's thread for every push answered 201, after recording. Keep it short; never
    /// print the full endpoint or keys (``RecordedPush`` holds only the endpoint's id).
    public var onAccepted: (@Sendable (RecordedPush) -> Void)?

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        tls: TLS? = nil,
        subscriptionsDirectory: String? = nil,
        maxConcurrentStreams: Int = 1000,
        timeSource: any TimeSource = SystemTimeSource(),
        recordInMemory: Bool = true,
        maxRecordedRequests: Int = 100_000,
        recordFile: String? = nil,
        script: MockWebPushScript = MockWebPushScript(),
        onAccepted: (@Sendable (RecordedPush) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.subscriptionsDirectory = subscriptionsDirectory
        self.maxConcurrentStreams = maxConcurrentStreams
        self.timeSource = timeSource
        self.recordInMemory = recordInMemory
        self.maxRecordedRequests = maxRecordedRequests
        self.recordFile = recordFile
        self.script = script
        self.onAccepted = onAccepted
    }
}

extension MockWebPushConfiguration: MockServerSettings {}
