import RelayHTTP

extension RelayAPI {
    /// The routes of the admin listener (`http.admin`): metrics and the probes, nothing of the API.
    public func adminRouter() -> Router {
        var router = Router(logger: logger, errorAnswer: Self.storageUnavailable)
        addOperations(to: &router, metrics: true)
        return router
    }

    /// `GET /healthz` and `/readyz` (no key), and `GET /metrics` when `metrics`.
    func addOperations(to router: inout Router, metrics: Bool) {
        router.get("/healthz") { _, _ in try .json(["status": "ok"]) }
        router.get("/readyz") { _, _ in try await readyz() }
        if metrics { router.get("/metrics") { _, _ in await metricsResponse() } }
    }
}
