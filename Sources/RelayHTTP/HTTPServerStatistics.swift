/// A running ``HTTPServer``'s connections, for metrics and tests.
public struct HTTPServerStatistics: Sendable, Equatable {
    /// Connections open now.
    public var openConnections: Int
    /// Most connections served at once: ``HTTPServerConfiguration/maxConnections`` as the open-file limit
    /// allowed it at start (0 before the start).
    public var connectionLimit: Int
    /// Connections closed because their request's line and headers (or TLS handshake) were not in by the
    /// header deadline, since the start.
    public var closedAtHeaderDeadline: Int
    /// Connections closed because their request's body was not in by the body deadline, since the start.
    public var closedAtBodyDeadline: Int
}
