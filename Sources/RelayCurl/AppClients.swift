import RelayCore
import Synchronization

/// A push service's client for one app, which finishes its sends in flight when shut down. A class: the
/// registry keeps its clients as objects (``AppClients``).
package protocol PushServiceClient: AnyObject, Sendable {
    func shutdown() async
}

/// The registry every push service's transport keeps: one client per app, made on first use from the app's
/// configuration, logging with its `app.id`, and shut down together.
package final class AppClients<Configuration: Sendable, Client: PushServiceClient>: Sendable {
    private let configurations: [String: Configuration]
    private let make: @Sendable (Configuration, Logger) throws -> Client
    private let logger: Logger
    /// The clients made, by app id. Kept as objects, not as `Client`: every push reads this in code that is
    /// not specialized to `Client`, where a generic lock and dictionary look up their types' metadata at run
    /// time on each call. Only ``client(appId:)`` stores here, and only a `Client`.
    private let clients = Mutex<[String: AnyObject]>([:])

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

    /// The app's client, made on first use; nil when the app has no settings for the service.
    /// - Throws: what making the client throws.
    package func client(appId: String) throws -> Client? {
        // Every push asks: the made client first, without copying the app's settings.
        if let client = clients.withLock({ $0[appId] }) { return unsafeDowncast(client, to: Client.self) }
        guard let configuration = configurations[appId] else { return nil }
        return try clients.withLock { clients in
            if let client = clients[appId] { return unsafeDowncast(client, to: Client.self) }
            let client = try make(configuration, logger.with(["app.id": appId]))
            clients[appId] = client
            return client
        }
    }

    /// Shuts down every client made, each after its sends in flight.
    package func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return clients.values.map { unsafeDowncast($0, to: Client.self) }
        }
        for client in all { await client.shutdown() }
    }
}
