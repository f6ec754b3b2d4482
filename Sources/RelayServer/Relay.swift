import Foundation
import RelayCore
import RelayHTTP
import RelayStore

/// The relay as one service: the HTTP API, the outbox dispatcher and the APNs clients over one store.
///
/// ``start()`` releases leases left by an earlier run (so pending deliveries resume at once), starts the
/// dispatcher and then the HTTP server. ``shutdown()`` stops accepting requests first, lets the requests in
/// flight finish, then lets the dispatcher finish and record what it has in flight: nothing accepted is lost.
public final class Relay: Sendable {
    public let configuration: Configuration
    public let store: any Store
    public let metrics = RelayMetrics()
    private let server: HTTPServer
    private let dispatcher: Dispatcher
    private let senders: APNsSenders
    private let logger: Logger
    private let dispatcherTask = MutexBox<Task<Void, Never>?>(nil)

    /// - Throws: ``Configuration/Invalid`` when the configuration does not validate.
    public init(
        configuration: Configuration,
        store: any Store,
        time: any TimeSource = SystemTimeSource(),
        logger: Logger
    )
        throws
    {
        try configuration.validate()
        self.configuration = configuration
        self.store = store
        self.logger = logger
        senders = APNsSenders(apps: configuration.apps, settings: configuration.delivery, time: time, logger: logger)
        dispatcher = Dispatcher(
            store: store,
            senders: senders,
            settings: configuration.delivery,
            time: time,
            metrics: metrics,
            logger: logger.with(["component": "dispatcher"])
        )
        let api = RelayAPI(
            directory: AppDirectory(apps: configuration.apps),
            store: store,
            dispatcher: dispatcher,
            metrics: metrics,
            time: time,
            logger: logger
        )
        let router = api.router()
        var http = HTTPServerConfiguration()
        http.host = configuration.http.host
        http.port = configuration.http.port
        http.maxBodyBytes = configuration.http.maxBodyBytes
        http.connectionTimeout = configuration.http.connectionTimeoutSeconds
        http.maxConnections = configuration.http.maxConnections
        let metrics = self.metrics
        let accessLog = logger.with(["component": "http"])
        server = HTTPServer(configuration: http, handler: router.handler, logger: logger) { entry in
            let route = entry.route ?? "unmatched"
            metrics.recordRequest(route: route, method: entry.method, status: entry.status)
            // The route pattern, never the path: a path can hold a device token.
            accessLog.info(
                "request",
                [
                    "request.id": entry.requestID, "http.method": entry.method, "http.route": route,
                    "http.status": "\(entry.status)", "duration_ms": String(format: "%.1f", entry.durationMilliseconds),
                ]
            )
        }
    }

    /// The HTTP port (the real one when the configuration asked for 0).
    public var port: Int { server.port }

    /// Starts the dispatcher and the HTTP server.
    /// - Throws: the store's error when leases cannot be released; `HTTPServerError` when the port cannot be bound.
    public func start() async throws {
        try await store.releaseLeases()
        let dispatcher = self.dispatcher
        dispatcherTask.set(Task { await dispatcher.run() })
        do { try server.start() } catch {
            await stopDispatcher()
            throw error
        }
        logger.info("relay listening", ["http.host": configuration.http.host, "http.port": "\(port)"])
    }

    /// Graceful stop: no new requests, in-flight requests answered, in-flight deliveries recorded.
    public func shutdown() async {
        await server.shutdown()
        await stopDispatcher()
        await senders.shutdown()
        logger.info("relay stopped")
    }

    private func stopDispatcher() async {
        guard let task = dispatcherTask.take() else { return }
        task.cancel()
        await task.value
    }
}
