import Foundation
import RelayCore
import RelayHTTP
import RelayOutbox
import RelayStore

extension RelayAPI {
    /// Most entries `GET /v1/dead-tokens` answers with: 10,000, the oldest retirements first; ask again with
    /// `since` = the last entry's `retiredAt` for more.
    static let deadTokenLimit = 10_000

    /// `GET /v1/dead-tokens?since=<RFC 3339>`: the app's retired tokens retired at or after `since` (default:
    /// all), oldest first, at most ``deadTokenLimit``:
    /// `{"deadTokens":[{"token","userId","environment","reason","apnsTimestamp"|null,"retiredAt"}]}`.
    /// - Throws: ``HTTPError`` 400 `invalid_query` when `since` is not RFC 3339.
    func deadTokens(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        try caller.requireBackend("/v1/dead-tokens")
        let app = caller.app
        var since = Date.distantPast
        if let text = request.query["since"] {
            guard let parsed = Timestamp.parse(text) else {
                throw HTTPError.badRequest(code: "invalid_query", message: "since must be an RFC 3339 time")
            }
            since = parsed
        }
        let devices = try await store.deadTokens(appId: app.id, since: since, limit: Self.deadTokenLimit)
        return try .json(DeadTokenList(deadTokens: devices.map(DeadTokenView.init)))
    }

    /// `GET /readyz` (no key): 200 `{"status":"ready","checks":{…}}`, or 503 `"status":"unavailable"` when
    /// the store takes no write (see ``Readiness``). With `listingApps` (the admin listener) the checks are
    /// `storage`, `apns:<appId>` and `fcm:<appId>`, each `ok` or a short reason, and `provider:<appId>` for
    /// an app whose sends are paused (``RelayOutbox/ProviderPauses/checks()``), `ditto-kafka:<appId>` for an
    /// app with a Kafka consumer (``RelayDittoKafka/DittoKafkaConsumer/check()``); without, the aggregate
    /// `storage` and `push` (``Readiness/Report/aggregate``), which name no app.
    func readyz(listingApps: Bool) async throws -> HTTPResponse {
        var report = await readiness.check()
        report.checks.merge(dispatcher.pauses.checks()) { _, paused in paused }
        for consumer in dittoConsumers {
            let (name, value) = consumer.check()
            report.checks[name] = value
        }
        return try .json(
            status: report.ready ? 200 : 503,
            ReadinessView(
                status: report.ready ? "ready" : "unavailable",
                checks: listingApps ? report.checks : report.aggregate
            )
        )
    }
}

/// One retired token as `GET /v1/dead-tokens` shows it.
struct DeadTokenList: Encodable {
    var deadTokens: [DeadTokenView]
}

struct ReadinessView: Encodable {
    var status: String
    var checks: [String: String]
}
