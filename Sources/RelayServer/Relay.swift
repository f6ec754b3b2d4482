import Foundation
import RelayAPNs
import RelayAuth
import RelayCore
import RelayCurl
import RelayDittoKafka
import RelayFCM
import RelayHTTP
import RelayOutbox
import RelayStore

/// The relay as one service: the HTTP API, the outbox dispatcher and its transports (APNs, FCM) over one
/// store.
///
/// ``start()`` takes the relay's instance id in the store (refused while another live relay holds it),
/// releases the leases an earlier run of that id left (so its pending deliveries resume at once; other
/// relays' leases stay), starts the dispatcher, woken also by other relays' webhooks, and then the HTTP
/// server. ``shutdown()`` stops accepting requests first, lets the requests in flight finish, then lets the
/// dispatcher finish and record what it has in flight and hand back what it claimed and did not send:
/// nothing accepted is lost.
/// The ``FeedbackSender`` runs beside the dispatcher, started after it and stopped after it (a retirement
/// recorded while stopping stays queued for the next start). The ``RetentionJob`` runs beside them.
/// Each app with `apps[].ditto.kafka` has a ``RelayDittoKafka/DittoKafkaConsumer``, started after the dispatcher and stopped, its batch in flight committed, before it.
/// Each app with `apps[].ditto.httpAPI` has a ``DittoRequeryJob`` that re-reads its collections after a
/// `requeryRequired`.
public final class Relay: Sendable {
    public let configuration: Configuration
    public let store: any Store
    /// The name its leases carry (``Configuration/resolvedInstanceId(hostName:)``).
    public let instanceId: String
    public let metrics: RelayMetrics
    private let server: HTTPServer
    /// The `http.admin` listener; nil when not enabled.
    private let adminServer: HTTPServer?
    private let dispatcher: Dispatcher
    private let transports: [any PushTransport]
    private let logger: Logger
    private let dispatcherTask = MutexBox<Task<Void, Never>?>(nil)
    private let feedback: FeedbackSender
    private let feedbackTask = MutexBox<Task<Void, Never>?>(nil)
    private let retention: RetentionJob
    private let retentionTask = MutexBox<Task<Void, Never>?>(nil)
    private let accessLog: AccessLog
    /// The admin listener's access log, which counts nothing in `pushrelay_http_requests_total`.
    private let adminAccessLog: AccessLog
    /// One consumer per app with `apps[].ditto.kafka`.
    private let dittoConsumers: [DittoKafkaConsumer]
    /// One re-read job per app with `apps[].ditto.httpAPI`.
    private let dittoRequeries: [DittoRequeryJob]
    private let requeryTask = MutexBox<Task<Void, Never>?>(nil)
    /// What `GET /readyz` answers, refreshed in the background.
    private let readiness: Readiness
    private let readinessTask = MutexBox<Task<Void, Never>?>(nil)
    private let gaugeReporter: StoreGaugeReporter
    private let gaugeTask = MutexBox<Task<Void, Never>?>(nil)
    /// Checks other parts of the relay report into `GET /readyz` (admin listener).
    public var healthChecks: HealthChecks { readiness.healthChecks }

    /// - Parameters:
    ///   - feedback: how retired tokens are POSTed to apps' `feedbackURL`s.
    ///   - gaugeInterval: how often the relay holding the store's gauge lease reads the store's figures
    ///     (``RelayOutbox/StoreGaugeReporter``).
    /// - Throws: ``Configuration/Invalid`` when the configuration does not validate, an app's provider
    ///   token key or FCM service-account key cannot be loaded (``APNsSenders/checkCredentials(_:)``,
    ///   ``RelayFCM/FCMTransport/checkCredentials(_:)``), its `userAuth` key files cannot be
    ///   used (``RelayAuth/AppUserAuthenticator/make(apps:time:logger:)``) or the HTTPS certificate cannot be
    ///   used (``loadTLS(_:)``).
    public init(
        configuration: Configuration,
        store: any Store,
        time: any TimeSource = SystemTimeSource(),
        logger: Logger,
        feedback: FeedbackSender.Settings = .init(),
        gaugeInterval: Duration = .seconds(10)
    )
        throws
    {
        try configuration.validate()
        try APNsSenders.checkCredentials(configuration.apps)
        try FCMTransport.checkCredentials(configuration.apps)
        let userAuthenticators = try AppUserAuthenticator.make(
            apps: configuration.apps,
            time: time,
            logger: logger.with(["component": "user-auth"])
        )
        let tls = try Self.loadTLS(configuration.http)
        self.configuration = configuration
        self.store = store
        self.instanceId = configuration.resolvedInstanceId()
        self.logger = logger.with(["relay.instance": instanceId])
        let logger = self.logger
        let metrics = RelayMetrics(
            appIds: configuration.apps.map(\.id),
            dittoAppIds: configuration.apps.filter { $0.ditto != nil }.map(\.id)
        )
        metrics.setGauges(
            MetricCatalog.buildInfo,
            [([("version", BuildInfo.version), ("libcurl", LibcurlInfo.current.version)], 1)]
        )
        self.metrics = metrics
        readiness = Readiness(
            store: store,
            apps: configuration.apps,
            metrics: metrics,
            logger: self.logger.with(["component": "readiness"])
        )
        gaugeReporter = StoreGaugeReporter(
            owner: instanceId,
            store: store,
            metrics: metrics,
            appIds: configuration.apps.map(\.id),
            time: time,
            logger: self.logger.with(["component": "gauges"]),
            interval: gaugeInterval
        )
        let transports = try Self.transports(configuration, store: store, time: time, logger: logger)
        self.transports = transports
        dispatcher = Dispatcher(
            owner: instanceId,
            store: store,
            transports: transports,
            settings: configuration.delivery,
            time: time,
            metrics: metrics,
            logger: logger.with(["component": "dispatcher"]),
            wakePolicies: Dictionary(
                configuration.apps.compactMap { app in WakePolicy(app: app).map { (app.id, $0) } },
                uniquingKeysWith: { first, _ in first }
            ),
            pauses: ProviderPauses(metrics: metrics, logger: logger.with(["component": "dispatcher"]))
        )
        self.feedback = FeedbackSender(
            owner: instanceId,
            store: store,
            apps: configuration.apps,
            settings: feedback,
            time: time,
            metrics: metrics,
            logger: logger.with(["component": "feedback"])
        )
        retention = RetentionJob(
            store: store,
            retention: .seconds(configuration.storage.retentionHours * 3600),
            owner: instanceId,
            time: time,
            logger: logger.with(["component": "retention"]),
            tombstoneRetention: Dictionary(
                configuration.apps.compactMap { app in
                    app.ditto.map { (app.id, Duration.seconds($0.tombstoneRetentionHours * 3600)) }
                },
                uniquingKeysWith: { first, _ in first }
            )
        )
        let dittoConsumers = Self.dittoConsumers(
            configuration,
            store: store,
            metrics: metrics,
            time: time,
            logger: logger
        )
        self.dittoConsumers = dittoConsumers
        let owner = instanceId
        dittoRequeries = configuration.apps.compactMap { app in
            guard let ditto = app.ditto, let httpAPI = ditto.httpAPI else { return nil }
            return DittoRequeryJob(
                appId: app.id,
                api: DittoQueryAPI(settings: httpAPI),
                applySettings: DittoApplySettings(app: app, ditto: ditto),
                store: store,
                owner: owner,
                time: time,
                logger: logger.with(["component": "ditto-requery"])
            )
        }
        let api = RelayAPI(
            directory: AppDirectory(
                apps: configuration.apps,
                userAuthenticators: userAuthenticators,
                limiter: CredentialCheckLimiter(
                    settings: configuration.http.credentialFailures,
                    ipv4PrefixLength: configuration.http.ipv4PrefixLength,
                    ipv6PrefixLength: configuration.http.ipv6PrefixLength,
                    time: time
                ),
                metrics: metrics,
                logger: logger.with(["component": "user-auth"])
            ),
            store: store,
            dispatcher: dispatcher,
            metrics: metrics,
            time: time,
            logger: logger,
            readiness: readiness,
            dittoConsumers: dittoConsumers
        )
        let router = api.router()
        let http = Self.httpServerConfiguration(configuration.http)
        let accessLog = AccessLog(metrics: metrics, logger: logger.with(["component": "http"]))
        self.accessLog = accessLog
        let onResponse: @Sendable (AccessLogEntry) -> Void = { accessLog.record($0) }
        let adminAccessLog = AccessLog(metrics: nil, logger: logger.with(["component": "http"]))
        self.adminAccessLog = adminAccessLog
        server = HTTPServer(
            configuration: http,
            tls: tls,
            methods: router.methods,
            headerCheck: router.headerCheck,
            handler: Self.withStoreDeadline(router.handler, configuration.storage),
            logger: logger,
            onResponse: onResponse
        )
        adminServer = Self.adminServer(
            configuration,
            api: api,
            logger: logger,
            onResponse: { adminAccessLog.record($0) }
        )
    }

    /// The HTTP port (the real one when the configuration asked for 0).
    public var port: Int { server.port }

    /// The port of the `http.admin` listener (the real one when the configuration asked for 0); nil when it
    /// is not enabled.
    public var adminPort: Int? { adminServer?.port }

    /// `"https"` when the relay serves TLS itself (`http.tls`), else `"http"`.
    public var scheme: String { server.tls == nil ? "http" : "https" }

    /// The HTTP server's connections: open, the limit in force, closed at their deadlines.
    public var httpStatistics: HTTPServerStatistics { server.statistics }

    /// Starts the dispatcher and the HTTP server.
    /// - Throws: ``RelayStore/StoreError`` `.instanceInUse` when another live relay holds this one's instance
    ///   id, or the store's error when leases cannot be released; `HTTPServerError` when the port cannot be
    ///   bound.
    public func start() async throws {
        // A server must not die because a peer closed a socket it writes to: OpenSSL writes through plain
        // write(2) (no MSG_NOSIGNAL), e.g. a TLS 1.3 session ticket to a readiness probe that already left.
        // Ignored process-wide, as servers do; writes then fail with EPIPE and are handled as errors.
        signal(SIGPIPE, SIG_IGN)
        await store.setFeedbackPolicy(feedback.policy)
        await store.setUnreadPolicy(UnreadPolicy(apps: configuration.apps))
        try await store.claimInstance(instanceId)
        try await store.releaseLeases(owner: instanceId)
        let dispatcher = self.dispatcher
        await store.setOutboxWakeHandler { dispatcher.wake() }
        dispatcherTask.set(Task { await dispatcher.run() })
        let feedback = self.feedback
        feedbackTask.set(Task { await feedback.run() })
        let retention = self.retention
        retentionTask.set(Task { await retention.run() })
        let readiness = self.readiness
        await readiness.probeOnce()
        readinessTask.set(Task { await readiness.run() })
        let gaugeReporter = self.gaugeReporter
        _ = try? await gaugeReporter.refresh()
        gaugeTask.set(Task { await gaugeReporter.run() })
        for consumer in dittoConsumers { consumer.start() }
        let requeries = dittoRequeries
        if !requeries.isEmpty {
            requeryTask.set(
                Task {
                    await withTaskGroup(of: Void.self) { group in
                        for job in requeries { group.addTask { await job.run() } }
                    }
                }
            )
        }
        do {
            try server.start()
            try adminServer?.start()
        } catch {
            await server.shutdown()
            for consumer in dittoConsumers { await consumer.stop() }
            await stop(requeryTask)
            await stopDispatcher()
            await stop(feedbackTask)
            await stop(retentionTask)
            await stop(readinessTask)
            await stop(gaugeTask)
            throw error
        }
        logger.info(
            "relay listening",
            [
                "http.host": configuration.http.host, "http.port": port, "http.scheme": scheme,
                "http.connection_limit": server.statistics.connectionLimit,
            ]
        )
        if let adminPort {
            logger.info("admin listening", ["http.host": configuration.http.admin.host, "http.port": adminPort])
        }
    }

    /// Graceful stop: no new requests, in-flight requests answered, in-flight deliveries recorded.
    public func shutdown() async {
        await server.shutdown()
        await adminServer?.shutdown()
        for consumer in dittoConsumers { await consumer.stop() }
        await stop(requeryTask)
        await stopDispatcher()
        await stop(feedbackTask)
        await stop(retentionTask)
        await stop(readinessTask)
        await stop(gaugeTask)
        for transport in transports { await transport.shutdown() }
        accessLog.flush()
        adminAccessLog.flush()
        logger.info("relay stopped")
    }

    private func stopDispatcher() async {
        await stop(dispatcherTask)
        await store.setOutboxWakeHandler(nil)
    }

    /// Cancels a service's task and waits until it has finished what it had in flight.
    private func stop(_ box: MutexBox<Task<Void, Never>?>) async {
        guard let task = box.take() else { return }
        task.cancel()
        await task.value
    }
}

extension Relay {
    /// A consumer for each app with `apps[].ditto.kafka`.
    static func dittoConsumers(
        _ configuration: Configuration,
        store: any Store,
        metrics: RelayMetrics,
        time: any TimeSource,
        logger: Logger
    ) -> [DittoKafkaConsumer] {
        let apps = configuration.apps.filter { $0.ditto?.kafka != nil }
        return apps.compactMap { app in
            guard let ditto = app.ditto, let kafka = ditto.kafka else { return nil }
            return DittoKafkaConsumer(
                appId: app.id,
                kafka: kafka,
                mirror: store,
                applySettings: DittoApplySettings(app: app, ditto: ditto),
                metrics: metrics,
                time: time,
                logger: logger.with(["component": "ditto-kafka"])
            )
        }
    }
}
