import RelayCore

/// Limits and binding of an ``HTTPServer``. libmicrohttpd enforces the total of connections and the
/// inactivity timeout itself; the header and body deadlines, the body pace, the caps per address and range and
/// the shedding near the total are the server's own (see ``ConnectionTable``).
public struct HTTPServerConfiguration: Sendable, Codable, Equatable {
    /// Numeric address or host name to bind. Default `"127.0.0.1"`; `"0.0.0.0"` or `"::"` for every address.
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks a free one (read it back from ``HTTPServer/port``). Default 8080.
    public var port: Int = 8080
    /// Largest accepted request body in bytes. A larger one gets 413 `payload_too_large` and never reaches
    /// the handler: at once when `Content-Length` announces it (the body is not read; the connection closes),
    /// else at the end of the streamed body, whose bytes past the limit are discarded, not buffered
    /// (libmicrohttpd cannot answer mid-body); a client streaming more than `limit + max(limit, 1 MiB)` bytes
    /// is disconnected. Default 65536.
    public var maxBodyBytes: Int = 65536
    /// Seconds of inactivity after which libmicrohttpd closes a connection (a half-sent request included).
    /// Any byte received renews it. Default 30.
    public var connectionTimeout: Int = 30
    /// Seconds from a connection's start (or the end of its previous request) within which a request's line
    /// and headers, TLS handshake included, must have arrived; bytes arriving slowly do not extend it. Past
    /// it the connection is closed without an answer. It also bounds how long a keep-alive connection waits
    /// idle for its next request. Default 10.
    public var headerTimeout: Int = 10
    /// Seconds from the end of a request's headers within which its body must have arrived, else the
    /// connection is closed without an answer. Default 30.
    public var bodyTimeout: Int = 30
    /// Most simultaneous connections; further ones wait in the listen backlog. At start it is lowered to
    /// what the open-file limit allows (``OpenFileLimit/connectionCapacity``), with a warning. Default 10000.
    public var maxConnections: Int = 10_000
    /// Most simultaneous connections from one direct peer address (the TCP peer, not `X-Forwarded-For`);
    /// further ones are closed at accept. Peers in ``trustedProxies`` are not capped. `nil` for no limit.
    /// Default 64.
    public var maxConnectionsPerAddress: Int? = 64
    /// Most simultaneous connections from the addresses of one range around the direct peer: its
    /// ``ipv4PrefixLength`` or ``ipv6PrefixLength`` leading bits (one IPv6 /64 holds 2^64 addresses);
    /// further ones are closed at accept. Peers in ``trustedProxies`` are not capped. `nil` for no limit.
    /// Default 256.
    public var maxConnectionsPerPrefix: Int? = 256
    /// Leading bits of an IPv4 peer address that make its range for ``maxConnectionsPerPrefix``, 1...32.
    /// Default 24.
    public var ipv4PrefixLength: Int = 24
    /// Leading bits of an IPv6 peer address that make its range for ``maxConnectionsPerPrefix``, 1...128.
    /// Default 64.
    public var ipv6PrefixLength: Int = 64
    /// Least average rate of a request body, in bytes a second, counted from the end of its headers once
    /// ``bodyRateGraceSeconds`` have passed (each that many bytes buy a second more); a slower body is
    /// closed without an answer, like one past ``bodyTimeout``. A client taking its answers (pipelined ones
    /// included) slower than this, counted from the first it has not acknowledged, is closed too. Default
    /// 1024.
    public var minBodyBytesPerSecond: Int = 1024
    /// Seconds from the end of a request's headers before ``minBodyBytesPerSecond`` counts. Default 5.
    public var bodyRateGraceSeconds: Int = 5
    /// Connections another listener of this process may hold (the admin listener's): left out of the room
    /// the open-file limit gives this server, so a flood here cannot take their descriptors. Default 0.
    public var reservedConnections: Int = 0
    /// Addresses and CIDR ranges of proxies whose `X-Forwarded-For` is believed (see
    /// ``HTTPRequest/clientAddress``). Default none.
    public var trustedProxies: [String] = []
    /// Internal polling threads of libmicrohttpd (they only parse and write; handlers run as Swift tasks).
    /// Default 1.
    public var threadCount: Int = 1
    /// Per-connection memory in bytes for the request line, headers and read buffer
    /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); a request whose headers do not fit is answered by
    /// libmicrohttpd itself (431 or 413). Default 32768.
    public var maxHeaderBytes: Int = 32768
    /// Seconds ``HTTPServer/shutdown()`` waits for in-flight requests before answering the rest with 503.
    /// Default 10.
    public var shutdownGracePeriod: Double = 10

    public init() {}

    /// Decodes the keys present and keeps the default for every missing one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        func value<T: Decodable>(_ key: CodingKeys, _ current: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? current
        }
        host = try value(.host, host)
        port = try value(.port, port)
        maxBodyBytes = try value(.maxBodyBytes, maxBodyBytes)
        connectionTimeout = try value(.connectionTimeout, connectionTimeout)
        headerTimeout = try value(.headerTimeout, headerTimeout)
        bodyTimeout = try value(.bodyTimeout, bodyTimeout)
        maxConnections = try value(.maxConnections, maxConnections)
        if container.contains(.maxConnectionsPerAddress) {
            maxConnectionsPerAddress = try container.decodeIfPresent(Int.self, forKey: .maxConnectionsPerAddress)
        }
        if container.contains(.maxConnectionsPerPrefix) {
            maxConnectionsPerPrefix = try container.decodeIfPresent(Int.self, forKey: .maxConnectionsPerPrefix)
        }
        ipv4PrefixLength = try value(.ipv4PrefixLength, ipv4PrefixLength)
        ipv6PrefixLength = try value(.ipv6PrefixLength, ipv6PrefixLength)
        minBodyBytesPerSecond = try value(.minBodyBytesPerSecond, minBodyBytesPerSecond)
        bodyRateGraceSeconds = try value(.bodyRateGraceSeconds, bodyRateGraceSeconds)
        reservedConnections = try value(.reservedConnections, reservedConnections)
        trustedProxies = try value(.trustedProxies, trustedProxies)
        threadCount = try value(.threadCount, threadCount)
        maxHeaderBytes = try value(.maxHeaderBytes, maxHeaderBytes)
        shutdownGracePeriod = try value(.shutdownGracePeriod, shutdownGracePeriod)
    }

    /// Every problem with this configuration, empty when valid: each limit within the range the relay's
    /// configuration gives it (``RelayCore/Configuration/HTTP``), so a server made directly (a mock's) is held
    /// to the same bounds.
    public func validate() -> [String] {
        var problems: [String] = []
        if host.isEmpty { problems.append("http.host must not be empty") }
        if !(0...65535).contains(port) { problems.append("http.port must be 0...65535") }
        let bodyRange = Configuration.HTTP.maxBodyBytesRange
        if !bodyRange.contains(maxBodyBytes) {
            problems.append("http.maxBodyBytes must be \(bodyRange.lowerBound)...\(bodyRange.upperBound)")
        }
        let seconds = Configuration.HTTP.timeoutSecondsRange, connections = Configuration.HTTP.maxConnectionsRange
        for (name, value) in [
            ("connectionTimeout", connectionTimeout), ("headerTimeout", headerTimeout), ("bodyTimeout", bodyTimeout),
        ] where !seconds.contains(value) {
            problems.append("http.\(name) must be \(seconds) (seconds)")
        }
        if !connections.contains(maxConnections) { problems.append("http.maxConnections must be \(connections)") }
        for (name, value) in [
            ("maxConnectionsPerAddress", maxConnectionsPerAddress),
            ("maxConnectionsPerPrefix", maxConnectionsPerPrefix),
        ] {
            if let value, !connections.contains(value) {
                problems.append("http.\(name) must be \(connections) when set")
            }
        }
        if !(1...32).contains(ipv4PrefixLength) { problems.append("http.ipv4PrefixLength must be 1...32") }
        if !(1...128).contains(ipv6PrefixLength) { problems.append("http.ipv6PrefixLength must be 1...128") }
        if minBodyBytesPerSecond < 1 { problems.append("http.minBodyBytesPerSecond must be positive") }
        if !seconds.contains(bodyRateGraceSeconds) { problems.append("http.bodyRateGraceSeconds must be \(seconds)") }
        if reservedConnections < 0 { problems.append("http.reservedConnections must not be negative") }
        if TrustedProxies(trustedProxies) == nil {
            problems.append("http.trustedProxies must be IP addresses or CIDR ranges")
        }
        if !(1...256).contains(threadCount) { problems.append("http.threadCount must be 1...256") }
        let headerRange = Configuration.HTTP.maxHeaderBytesRange
        if !headerRange.contains(maxHeaderBytes) {
            problems.append("http.maxHeaderBytes must be \(headerRange.lowerBound)...\(headerRange.upperBound)")
        }
        if !(shutdownGracePeriod >= 0) { problems.append("http.shutdownGracePeriod must not be negative") }
        return problems
    }
}
