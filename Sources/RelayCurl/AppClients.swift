import RelayCore
import Synchronization

/// A push service's client for one app, which finishes its sends in flight when shut down.
package protocol PushServiceClient: Sendable {
    func shutdown() async
}

/// The registry every push service's transport keeps: one client per app, made on first use from the app's
/// configuration, logging with its `app.id`, and shut down together.
package final class AppClients<Configuration: Sendable, Client: PushServiceClient>: Sendable {
    @usableFromInline let configurations: [String: Configuration]
    @usableFromInline let make: @Sendable (Configuration, Logger) throws -> Client
    @usableFromInline let logger: Logger
    @usableFromInline let clients = Mutex<[String: Client]>([:])

    /// - Parameters:
    ///   - configurations: each app's settings for the service, by app id; an app without one has none.
    ///   - logger: the transport's logger; each client gets it with the app's `app.id`.
    ///   - make: makes a client from an app's settings and its logger.
    package init(
        _ configurations: [String: Configuration],
        logger: Logger,
        make: @escaping @Sendable (Configuration, Logger) throws -> Client
    ) {
        self.configurations = configurations
        self.logger = logger
        self.make = make
    }

    /// The app's client, made on first use; nil when the app has no settings for the service. Inlinable, so
    /// each push service's transport calls a copy specialized to its types: every push asks, and an
    /// unspecialized copy looks up the generic types' metadata at run time on each call.
    /// - Throws: what making the client throws.
    @inlinable package func client(appId: String) throws -> Client? {
        // Every push asks: the made client first, without copying the app's settings.
        if let client = clients.withLock({ $0[appId] }) { return client }
        guard let configuration = configurations[appId] else { return nil }
        return try clients.withLock { clients in
            if let client = clients[appId] { return client }
            let client = try make(configuration, logger.with(["app.id": appId]))
            clients[appId] = client
            return client
        }
    }

    /// Shuts down every client made, each after its sends in flight.
    package func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        for client in all { await client.shutdown() }
    }
}
