import Foundation
import RelayCore
import RelayDittoKafka
import RelayHTTP
import RelayOutbox
import RelayStore

/// The REST API: authenticates each `/v1` call to one app's backend or user, authorizes it, validates, and
/// hands over to the store and the dispatcher. Every route is registered in ``router()``.
public struct RelayAPI: Sendable {
    let directory: AppDirectory
    let store: any Store
    let dispatcher: Dispatcher
    let metrics: RelayMetrics
    let time: any TimeSource
    let logger: Logger
    let readiness: Readiness
    let limiter: UserLimiter
    /// The apps' Ditto Kafka consumers, whose lag and last-record age `/metrics` shows.
    let dittoConsumers: [DittoKafkaConsumer]
    /// The budget of both listeners' `handler failed` lines, as many a second as the access log's failed
    /// requests' (a storage outage fails every call alike).
    let failureLines = LogBudget(
        limit: AccessLog.Kind.failed.linesPerSecond,
        interval: .seconds(1),
        lines: "handler failures"
    )
    /// The budget of the `device registered` / `device updated` and `webhook accepted` lines, as many a second
    /// as the access log's answered requests': a backend registering a user base or relaying a busy app's
    /// messages writes a bounded number of them (each call is still in the access log's count).
    let eventLines = LogBudget(
        limit: AccessLog.Kind.answered.linesPerSecond,
        interval: .seconds(1),
        lines: "device and webhook lines"
    )
    /// The API's own line budgets, whose lines left out are reported at a stop.
    var lineBudgets: [LogBudget] { [failureLines, eventLines] }

    /// - Parameter readiness: what `GET /readyz` checks; nil makes one over `store` and the directory's apps.
    public init(
        directory: AppDirectory,
        store: any Store,
        dispatcher: Dispatcher,
        metrics: RelayMetrics,
        time: any TimeSource,
        logger: Logger,
        readiness: Readiness? = nil,
        dittoConsumers: [DittoKafkaConsumer] = []
    ) {
        self.directory = directory
        self.store = store
        self.dispatcher = dispatcher
        self.metrics = metrics
        self.time = time
        self.logger = logger
        self.readiness = readiness ?? Readiness(store: store, apps: directory.apps)
        self.limiter = UserLimiter(store: store, time: time)
        self.dittoConsumers = dittoConsumers
    }

    /// The API listener's routes that take no credential: its probes and the OpenAPI document.
    static let openRoutes: Set<String> = [healthzRoute, readyzRoute, openAPIRoute]
    private static let healthzRoute = "/healthz"
    private static let readyzRoute = "/readyz"
    private static let openAPIRoute = "/openapi.json"

    /// Every route of the API's listener. `GET /metrics` and the per-app `GET /readyz` are the admin
    /// listener's (``adminRouter(listener:)``): app ids are the operator's business.
    public func router() -> Router {
        var router = Router(logger: logger, errorAnswer: Self.storageUnavailable, failureLines: failureLines)
        router.get(Self.healthzRoute) { _, _ in try .json(["status": "ok"]) }
        router.get(Self.readyzRoute) { _, _ in try await readyz(listingApps: false) }
        router.get(Self.openAPIRoute) { _, _ in OpenAPIDocument.response }
        router.post("/v1/devices") { request, _ in try await registerDevice(request) }
        router.delete("/v1/devices/{token}", query: ["platform"]) { request, parameters in
            try await deleteDevice(request, parameters)
        }
        router.get("/v1/users/{userId}/devices") { request, parameters in try await userDevices(request, parameters) }
        router.get("/v1/users/{userId}/settings") { request, parameters in
            try await userSettings(request, parameters)
        }
        router.put("/v1/users/{userId}/settings") { request, parameters in
            try await setUserSettings(request, parameters)
        }
        router.get("/v1/rooms/{roomId}/members/{userId}") { request, parameters in
            try await roomLevel(request, parameters)
        }
        router.put("/v1/rooms/{roomId}/members/{userId}") { request, parameters in
            try await joinRoom(request, parameters)
        }
        router.delete("/v1/rooms/{roomId}/members/{userId}") { request, parameters in
            try await leaveRoom(request, parameters)
        }
        router.put("/v1/rooms/{roomId}/read/{userId}") { request, parameters in try await markRead(request, parameters)
        }
        router.get("/v1/users/{userId}/unread") { request, parameters in try await unread(request, parameters) }
        router.get("/v1/rooms/{roomId}/members", query: ["limit", "offset"]) { request, parameters in
            try await roomMembers(request, parameters)
        }
        router.put("/v1/rooms/{roomId}") { request, parameters in try await setRoom(request, parameters) }
        router.get("/v1/rooms/{roomId}") { request, parameters in try await room(request, parameters) }
        router.post(Self.dittoEventsPath) { request, _ in try await dittoEvents(request) }
        router.checkHeaders("POST", Self.dittoEventsPath) { _, _, headers, client in
            dittoEventsHeaderCheck(headers, client: client)
        }
        router.post(Self.messagePath) { request, _ in try await webhook(request, kind: .message) }
        router.post(Self.imageMessagePath) { request, _ in
            try await webhook(request, kind: .imageMessage)
        }
        router.get("/v1/notifications", query: ["messageId", "limit", "offset"]) { request, parameters in
            try await notificationByMessage(request, parameters)
        }
        router.get("/v1/notifications/{notificationId}", query: ["limit", "offset"]) { request, parameters in
            try await notification(request, parameters)
        }
        router.get("/v1/dead-tokens", query: ["since"]) { request, _ in try await deadTokens(request) }
        // Every other /v1 call's credential, as far as the headers decide it, before a body is read.
        router.checkRoutedHeaders { pattern, headers, client in
            guard pattern.hasPrefix("/v1/") else { return .proceed(maxBodyBytes: nil) }
            return directory.verdictBeforeBody(headers, client: client)
        }
        return router
    }

    /// A store that cannot write just now (disk full, I/O error, locked past its busy timeout, a conflict
    /// with concurrent writers that outlasted the retries, read-only, no connection free by the request's
    /// deadline), or that a call found damaged (``RelayStore/StorePool`` makes no more calls of it until the
    /// relay restarts on a restored or repaired store):
    /// 503 `storage_unavailable` with `Retry-After`, since the same call may well succeed later. Nothing was
    /// recorded (every write is one transaction), unless the database stopped answering (`io`) while it may
    /// have committed (not ``RelayStore/StoreError/committedNothing``): then whether it was is not known, and
    /// a retry with the same `messageId` or `Idempotency-Key` is answered from the first if it was.
    static func storageUnavailable(_ error: any Error) -> HTTPError? {
        guard let error = error as? StoreError, error.isTransient || error.meansDamage else { return nil }
        let recorded =
            error.code == .io && !error.committedNothing
            ? "whether it was recorded is not known: retry it (a webhook with the same messageId or "
                + "Idempotency-Key is recorded once)" : "nothing was recorded"
        return HTTPError(
            status: 503,
            code: "storage_unavailable",
            message: "The relay's storage is unavailable right now (\(error.code)); \(recorded)",
            headers: [("Retry-After", "\(storageRetryAfterSeconds)")]
        )
    }

    /// `Retry-After` of a 503 `storage_unavailable`, in SECONDS.
    static let storageRetryAfterSeconds = 5

    /// `GET /metrics`: rendered from memory (``RelayOutbox/RelayMetrics``), with the API listener's
    /// connections (`listener`), the Kafka consumers' gauges and the process's own figures
    /// (``ProcessMetrics``); nothing here waits on the store.
    func metricsResponse(listener: HTTPServerStatistics) async -> HTTPResponse {
        var scraped = listener.samples + ProcessMetrics.samples()
        for consumer in dittoConsumers { scraped += consumer.gauges() }
        var response = HTTPResponse.text(metrics.render(scraped: scraped))
        response.headers = [("content-type", "text/plain; version=0.0.4; charset=utf-8")]
        return response
    }
}
