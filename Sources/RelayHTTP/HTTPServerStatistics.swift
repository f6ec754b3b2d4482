/// A running ``HTTPServer``'s connections, for metrics and tests.
public struct HTTPServerStatistics: Sendable, Equatable {
    /// Connections open now.
    public var openConnections: Int
    /// Most connections served at once: ``HTTPServerConfiguration/maxConnections`` as the open-file limit
    /// allowed it at start (0 before the start).
    public var connectionLimit: Int
    /// Connections the server closed itself since the start, by why (a reason none met is absent).
    public var closed: [ConnectionClosure: Int]

    /// Connections closed for `reason` since the start.
    public func closed(_ reason: ConnectionClosure) -> Int { closed[reason, default: 0] }

    /// A server's before its start: nothing open, allowed or closed.
    public static let notStarted = HTTPServerStatistics(openConnections: 0, connectionLimit: 0, closed: [:])
}
