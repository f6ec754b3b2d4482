/// A running ``HTTPServer``'s connections, for metrics and tests.
public struct HTTPServerStatistics: Sendable, Equatable {
    /// Connections open now.
    public var openConnections: Int
    /// Most connections served at once: ``HTTPServerConfiguration/maxConnections`` as the open-file limit
    /// allowed it at start (0 before the start).
    public var connectionLimit: Int
    /// Keep-alive connections closed at the header deadline having sent nothing since their last answer,
    /// since the start.
    public var closedIdle: Int
    /// Connections closed because their request's line and headers (or TLS handshake) were not in by the
    /// header deadline (not counting ``closedIdle``), since the start.
    public var closedAtHeaderDeadline: Int
    /// Connections closed because their request's body was not in by the body deadline, since the start.
    public var closedAtBodyDeadline: Int
    /// Connections closed because their request's body arrived slower than
    /// ``HTTPServerConfiguration/minBodyBytesPerSecond``, since the start.
    public var closedForSlowBody: Int
    /// Connections closed because their client took its answers slower than
    /// ``HTTPServerConfiguration/minBodyBytesPerSecond``, since the start.
    public var closedForSlowAnswer: Int
    /// Connections closed at accept because their peer address was at
    /// ``HTTPServerConfiguration/maxConnectionsPerAddress``, since the start.
    public var refusedOverAddressCap: Int
    /// Connections closed at accept because their peer's range was at
    /// ``HTTPServerConfiguration/maxConnectionsPerPrefix``, since the start.
    public var refusedOverPrefixCap: Int
    /// Unfinished requests dropped so that new connections fit under the limit, since the start.
    public var shed: Int

    /// A server's before its start: nothing open, allowed or closed.
    public static let notStarted = HTTPServerStatistics(
        openConnections: 0,
        connectionLimit: 0,
        closedIdle: 0,
        closedAtHeaderDeadline: 0,
        closedAtBodyDeadline: 0,
        closedForSlowBody: 0,
        closedForSlowAnswer: 0,
        refusedOverAddressCap: 0,
        refusedOverPrefixCap: 0,
        shed: 0
    )
}
