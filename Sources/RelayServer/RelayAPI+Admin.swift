import RelayHTTP

extension RelayAPI {
    /// The routes of the admin listener (`http.admin`): `GET /healthz`, `GET /readyz` with a check per app,
    /// and `GET /metrics`, with the API listener's connections as `listener` gives them; nothing of the API.
    public func adminRouter(listener: @escaping @Sendable () -> HTTPServerStatistics) -> Router {
        var router = Router(logger: logger, errorAnswer: Self.storageUnavailable, failureLines: failureLines)
        router.get("/healthz") { _, _ in try .json(["status": "ok"]) }
        router.get("/readyz") { _, _ in try await readyz(listingApps: true) }
        router.get("/metrics") { _, _ in await metricsResponse(listener: listener()) }
        return router
    }
}
