/// A service for something started elsewhere that runs on threads of its own (a listener, a mock server):
/// it holds it open until the group stops it, then runs `close`.
public struct CloseOnShutdown: Service {
    private let close: @Sendable () async -> Void

    /// - Parameter close: stops what is held open; called once, when the service is cancelled.
    public init(_ close: @escaping @Sendable () async -> Void) { self.close = close }

    public func run() async {
        await Task.waitUntilCancelled()
        await close()
    }
}
