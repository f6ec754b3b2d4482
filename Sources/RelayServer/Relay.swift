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
import RelayWebPush

/// The relay: the HTTP API, the outbox dispatcher and its transports (APNs, FCM) over one store, run as
/// services of a ``RelayCore/ServiceGroup``.
///
/// ``prepare()`` takes the relay's instance id in the store (refused while another live relay holds it),
/// releases the leases an earlier run of that id left (so its pending deliveries resume at once; other
/// relays' leases stay) and binds the listeners; its services are the dispatcher (woken also by other
/// relays' webhooks), the ``FeedbackSender`` beside it, the ``RetentionJob``, the readiness probes and store
/// gauges, a ``RelayDittoKafka/DittoKafkaConsumer`` for each app with `apps[].ditto.kafka`, a
/// ``DittoRequeryJob`` for each app with `apps[].ditto.httpAPI` (re-reads its collections after a
/// `requeryRequired`), and the listeners. A graceful shutdown turns the relay unready first (serving on for
/// `http.closeDelaySeconds`), stops accepting requests, lets the requests in flight finish, then lets the
/// dispatcher finish and record what it has in flight and hand back what it claimed and did not send:
/// nothing accepted is lost.
public final class Relay: Sendable {
    public let configuration: Configuration
    public let store: any Store
    /// The name its leases carry (``Configuration/resolvedInstanceId(hostName:)``).
    public let instanceId: String
    public let metrics: RelayMetrics
    private let server: HTTPServer
    /// The API's router behind the store deadline: what ``server`` and ``respond(to:)`` answer with.
    private let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    /// The `http.admin` listener; nil when not enabled.
    private let adminServer: HTTPServer?
    private let dispatcher: Dispatcher
    private let transports: [any PushTransport]
    private let logger: Logger
    private let feedback: FeedbackSender
    private let retention: RetentionJob
    private let servedApps: ServedAppsMarker
    /// The API listener's access log; its budgets are the admin listener's too, so it alone reports what
    /// both left out.
    private let accessLog: AccessLog
    /// The API's line budgets (``RelayAPI/lineBudgets``), whose rest is reported at a stop.
    private let apiLines: [LogBudget]
    /// The budget of the push services' and the dispatcher's lines (a line per failed attempt), 200 a second.
    private let deliveryLines: LogBudget
    /// The group ``start()`` runs and its task; nil when not started.
    private let running = MutexBox<(ServiceGroup, Task<Void, Never>)?>(nil)
    /// One consumer per app with `apps[].ditto.kafka`.
    private let dittoConsumers: [DittoKafkaConsumer]
    /// One re-read job per app with `apps[].ditto.httpAPI`.
    private let dittoRequeries: [DittoRequeryJob]
    /// What `GET /readyz` answers, refreshed in the background.
    private let readiness: Readiness
    private let gaugeReporter: StoreGaugeReporter
    /// Checks other parts of the relay report into `GET /readyz` (admin listener).
    public var healthChecks: HealthChecks { readiness.healthChecks }

    /// - Parameters:
    ///   - feedback: how retired tokens are POSTed to apps' `feedbackURL`s.
    ///   - gaugeInterval: how often the relay holding the store's gauge lease reads the store's figures
    ///     (``RelayOutbox/StoreGaugeReporter``).
    /// - Throws: ``Configuration/Invalid`` when the configuration does not validate, an app's provider
    ///   token key or FCM service-account key cannot be loaded (``APNsSenders/checkCredentials(_:)``,
    ///   ``RelayFCM/FCMTransport/checkCredentials(_:)``), its VAPID key cannot sign or its subject is refused
    ///   (``RelayWebPush/WebPushTransport/checkCredentials(_:)``), librdkafka refuses its Kafka settings
    ///   (``RelayDittoKafka/DittoKafkaCheck/check(_:)``), its `userAuth` key files cannot be
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
        try WebPushTransport.checkCredentials(configuration.apps)
        try DittoKafkaCheck.check(configuration.apps)
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
        // The push services' and the dispatcher's lines come per delivery attempt: a budget bounds them.
        let deliveryLines = LogBudget(limit: 200, interval: .seconds(1), lines: "delivery lines")
        self.deliveryLines = deliveryLines
        var deliveryLogger = logger
        deliveryLogger.handler = BudgetedLogHandler(logger.handler, budget: deliveryLines)
        let transports = try Self.transports(configuration, store: store, time: time, logger: deliveryLogger)
        self.transports = transports
        let metrics = RelayMetrics(
            appIds: configuration.apps.map(\.id),
            dittoAppIds: configuration.apps.filter { $0.ditto != nil }.map(\.id),
            reasons: transports.flatMap(\.reasons)
        )
        metrics.zeroRequests(routes: RelayAPI.messageRoutes, statuses: [500, 503])
        metrics.setGauges(
            MetricCatalog.buildInfo,
            [([("version", BuildInfo.version), ("libcurl", LibcurlInfo.current.version)], 1)]
        )
        self.metrics = metrics
        readiness = Readiness(store: store, apps: configuration.apps, metrics: metrics)
        gaugeReporter = StoreGaugeReporter(
            owner: instanceId,
            store: store,
            metrics: metrics,
            appIds: configuration.apps.map(\.id),
            time: time,
            logger: self.logger.with(["component": "gauges"]),
            interval: gaugeInterval
        )
        dispatcher = Dispatcher(
            owner: instanceId,
            appIds: configuration.apps.map(\.id),
            store: store,
            transports: transports,
            settings: configuration.delivery,
            time: time,
            metrics: metrics,
            logger: deliveryLogger.with(["component": "dispatcher"]),
            wakePolicies: Dictionary(
                configuration.apps.compactMap { app in WakePolicy(app: app).map { (app.id, $0) } },
                uniquingKeysWith: { first, _ in first }
            ),
            pushDelays: Dictionary(
                configuration.apps.map { ($0.id, $0.pushDelaySeconds) },
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
        servedApps = ServedAppsMarker(
            store: store,
            appIds: configuration.apps.map(\.id),
            owner: instanceId,
            time: time,
            logger: logger.with(["component": "served-apps"])
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
        let healthChecks = readiness.healthChecks
        dittoRequeries = configuration.apps.compactMap { app in
            guard let ditto = app.ditto, let httpAPI = ditto.httpAPI else { return nil }
            var job = DittoRequeryJob(
                appId: app.id,
                api: DittoQueryAPI(settings: httpAPI),
                applySettings: DittoApplySettings(app: app, ditto: ditto),
                store: store,
                owner: owner,
                time: time,
                logger: logger.with(["component": "ditto-requery"])
            )
            job.reports = healthChecks
            return job
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
        apiLines = api.lineBudgets
        let router = api.router()
        let http = Self.httpServerConfiguration(configuration.http)
        let budgets = AccessLog.Budgets()
        let accessLog = AccessLog(
            metrics: metrics,
            logger: logger.with(["component": "http"]),
            open: .routes(RelayAPI.openRoutes),
            budgets: budgets
        )
        self.accessLog = accessLog
        let onResponse: @Sendable (AccessLogEntry) -> Void = { accessLog.record($0) }
        // The admin listener's log counts nothing in `pushrelay_http_requests_total`.
        let adminAccessLog = AccessLog(
            metrics: nil,
            logger: logger.with(["component": "http"]),
            open: .all,
            budgets: budgets
        )
        let handler = Self.withStoreDeadline(router.handler, configuration.storage)
        self.handler = handler
        server = HTTPServer(
            configuration: http,
            tls: tls,
            methods: router.methods,
            headerCheck: router.headerCheck,
            routeOf: router.routeOf,
            handler: handler,
            logger: logger,
            onResponse: onResponse
        )
        adminServer = Self.adminServer(
            configuration,
            api: api,
            listener: server,
            logger: logger,
            onResponse: { adminAccessLog.record($0) }
        )
    }

    /// Answers `request` as the HTTP listener's handler does, without a socket: the listener's own checks
    /// (methods, header checks, connection limits, access log) are not applied. For tests that drive the
    /// API in-process.
    public func respond(to request: HTTPRequest) async -> HTTPResponse { await handler(request) }

    /// The HTTP port (the real one when the configuration asked for 0).
    public var port: Int { server.port }

    /// The port of the `http.admin` listener (the real one when the configuration asked for 0); nil when it
    /// is not enabled.
    public var adminPort: Int? { adminServer?.port }

    /// `"https"` when the relay serves TLS itself (`http.tls`), else `"http"`.
    public var scheme: String { server.tls == nil ? "http" : "https" }

    /// The HTTP server's connections: open, the limit in force, closed at their deadlines.
    public var httpStatistics: HTTPServerStatistics { server.statistics }

    /// Starts the relay in the background: ``prepare()``, then its services in a ``RelayCore/ServiceGroup``
    /// of its own until ``shutdown()``. A program that stops on signals runs ``prepare()``'s services in its
    /// own group instead (`push-relay serve`).
    /// - Throws: what ``prepare()`` throws.
    public func start() async throws {
        let group = ServiceGroup(services: try await prepare(), logger: logger.with(["component": "lifecycle"]))
        running.set((group, Task { try? await group.run() }))
    }

    /// Graceful stop of what ``start()`` started: no new requests, in-flight requests answered, in-flight
    /// deliveries recorded. Returns at once when not started.
    public func shutdown() async {
        guard let (group, task) = running.take() else { return }
        group.triggerGracefulShutdown()
        await task.value
    }

    /// Takes the relay's instance id in the store, releases the leases an earlier run of it left, takes the
    /// first readiness probes and store figures, and binds the listeners; returns the relay's parts as
    /// services in start order, for a ``RelayCore/ServiceGroup`` (which stops them in the reverse order).
    ///
    /// The order: gauges, readiness, retention, feedback, dispatcher, Ditto re-reads, Ditto consumers, admin
    /// listener, HTTP listener, the readiness lifecycle, so a shutdown first answers `/readyz` 503 (and goes on
    /// serving for `http.closeDelaySeconds`), stops accepting requests (the listeners finish those in
    /// flight), lets the consumers commit their batch, then lets the dispatcher record what it has in flight
    /// and hand back what it claimed (feedback for a retirement it records stays queued for the next start).
    /// A first service, stopped last, shuts the transports down and flushes the access logs.
    /// - Throws: ``RelayStore/StoreError`` `.instanceInUse` when another live relay holds this one's instance
    ///   id, or the store's error when leases cannot be released; `HTTPServerError` when a port cannot be
    ///   bound.
    public func prepare() async throws -> [ServiceGroup.Entry] {
        await store.setFeedbackPolicy(feedback.policy)
        await store.setUnreadPolicy(UnreadPolicy(apps: configuration.apps))
        try await store.dropUnreadTotalsNotKept()
        try await store.claimInstance(instanceId)
        try await store.releaseLeases(owner: instanceId)
        await readiness.probeOnce()
        _ = try? await gaugeReporter.refresh()
        do {
            try server.start()
            try adminServer?.start()
        } catch {
            await server.shutdown()
            await adminServer?.shutdown()
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
        var services: [ServiceGroup.Entry] = [
            .init(
                "relay",
                CloseOnShutdown { [transports, accessLog, apiLines, deliveryLines, logger] in
                    for transport in transports { await transport.shutdown() }
                    accessLog.flush()
                    for budget in apiLines + [deliveryLines] { budget.flush(to: logger) }
                    logger.info("relay stopped")
                }
            ),
            .init("gauges", gaugeReporter),
            .init("readiness", readiness),
            .init("retention", retention),
            .init("served-apps", servedApps),
            .init("feedback", feedback),
            .init("dispatcher", DispatcherService(dispatcher: dispatcher, store: store)),
        ]
        services += dittoRequeries.map { .init("ditto-requery", $0) }
        services += dittoConsumers.map { .init("ditto-kafka", $0) }
        if let adminServer { services.append(.init("admin-http", CloseOnShutdown { await adminServer.shutdown() })) }
        services.append(.init("http", CloseOnShutdown { [server] in await server.shutdown() }))
        // Stopped first (the group stops in reverse order): unready before the listeners drain.
        let closeDelay = configuration.http.closeDelaySeconds
        services.append(
            .init(
                "lifecycle",
                CloseOnShutdown { [readiness, logger] in
                    await readiness.beginStopping()
                    guard closeDelay > 0 else { return }
                    logger.notice(
                        "unready; the listeners close after the delay",
                        ["shutdown.close_delay_seconds": closeDelay]
                    )
                    try? await Task.sleep(for: .seconds(closeDelay))
                }
            )
        )
        return services
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
