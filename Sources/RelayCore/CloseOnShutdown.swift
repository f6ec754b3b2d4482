/// A service for something started elsewhere that runs on threads of its own (a listener, a mock server):
/// it holds it open until the group stops it, then runs `close` to its end.
public struct CloseOnShutdown: Service {
    private let close: @Sendable () async -> Void

    /// - Parameter close: stops what is held open; called once, when the service is cancelled.
    public init(_ close: @escaping @Sendable () async -> Void) { self.close = close }

    public func run() async {
        await Task.waitUntilCancelled()
        // In a task of its own: the cancellation that asked for the close must not cut its waits short (a
        // listener lets the requests in flight finish).
        await Task { await close() }.value
    }
}
