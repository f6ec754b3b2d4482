import RelayCore

/// How the mock commands run once listening: one service in a ``RelayCore/ServiceGroup`` that stops on
/// SIGINT, SIGTERM or SIGHUP.
enum MockLifecycle {
    /// Returns once a signal stopped the group and `close` has run.
    /// - Parameters:
    ///   - signals: made before the command said it is up, so a signal sent the moment it is counts.
    ///   - close: stops the mock.
    static func run(_ name: String, signals: Signals, close: @escaping @Sendable () async -> Void) async throws {
        // Warnings and worse only: a mock's stderr stays quiet on an ordinary stop.
        let logger = Logger(label: "push-relay", level: .warning)
        let group = ServiceGroup(
            services: [.init(name, CloseOnShutdown(close))],
            settings: .init(signals: signals),
            logger: logger
        )
        try await group.run()
    }
}
