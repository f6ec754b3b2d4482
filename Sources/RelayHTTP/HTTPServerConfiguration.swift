import RelayCore

/// Limits and binding of an ``HTTPServer``. libmicrohttpd enforces the connection limits and timeouts itself.
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
    /// Default 30.
    public var connectionTimeout: Int = 30
    /// Most simultaneous connections; further ones are refused at accept. Default 1024.
    public var maxConnections: Int = 1024
    /// Most simultaneous connections from one IP address; `nil` for no limit. Default `nil`.
    public var perIPConnectionLimit: Int? = nil
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
        host = try container.decodeIfPresent(String.self, forKey: .host) ?? host
        port = try container.decodeIfPresent(Int.self, forKey: .port) ?? port
        maxBodyBytes = try container.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? maxBodyBytes
        connectionTimeout = try container.decodeIfPresent(Int.self, forKey: .connectionTimeout) ?? connectionTimeout
        maxConnections = try container.decodeIfPresent(Int.self, forKey: .maxConnections) ?? maxConnections
        perIPConnectionLimit = try container.decodeIfPresent(Int.self, forKey: .perIPConnectionLimit)
        threadCount = try container.decodeIfPresent(Int.self, forKey: .threadCount) ?? threadCount
        maxHeaderBytes = try container.decodeIfPresent(Int.self, forKey: .maxHeaderBytes) ?? maxHeaderBytes
        shutdownGracePeriod =
            try container.decodeIfPresent(Double.self, forKey: .shutdownGracePeriod) ?? shutdownGracePeriod
    }

    /// Every problem with this configuration, empty when valid. Zero or negative limits are refused.
    public func validate() -> [String] {
        var problems: [String] = []
        if host.isEmpty { problems.append("http.host must not be empty") }
        if !(0...65535).contains(port) { problems.append("http.port must be 0...65535") }
        if maxBodyBytes < 1 { problems.append("http.maxBodyBytes must be positive") }
        if connectionTimeout < 1 { problems.append("http.connectionTimeout must be positive (seconds)") }
        if maxConnections < 1 { problems.append("http.maxConnections must be positive") }
        if let limit = perIPConnectionLimit, limit < 1 {
            problems.append("http.perIPConnectionLimit must be positive when set")
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
