import RelayCore
import RelayOutbox
import Testing

@testable import RelayHTTP
@testable import RelayServer

/// Which access lines are written at `info`: what a credential made, and refusals (within their budget);
/// the successes of routes anyone may call are at `debug`, so a stranger cannot write lines without a bound.
@Suite struct AccessLogTests {
    static func entry(_ route: String?, status: Int) -> AccessLogEntry {
        AccessLogEntry(
            requestID: "r",
            method: "GET",
            path: route ?? "/x",
            route: route,
            status: status,
            durationMilliseconds: 1,
            requestBytes: 0,
            responseBytes: 0,
            remoteAddress: "192.0.2.1",
            clientAddress: "192.0.2.1"
        )
    }

    /// The levels of the lines `entries` write through an access log of the API listener (`quiet` its open
    /// routes) or of the admin listener, at `debug`.
    static func levels(_ entries: [AccessLogEntry], quiet: AccessLog.QuietSuccesses) -> [Logger.Level] {
        let lines = MemoryLogHandler()
        let log = AccessLog(
            metrics: RelayMetrics(appIds: ["app0"]),
            logger: Logger(label: "test", level: .debug, handler: lines),
            quiet: quiet,
            budgets: .perSecond()
        )
        entries.forEach(log.record)
        return lines.entries.filter { $0.message == "request" }.map(\.level)
    }

    @Test func theOpenRoutesSuccessesAreDebugAndTheRestInfo() {
        let api = AccessLog.QuietSuccesses.routes(RelayAPI.openRoutes)
        #expect(RelayAPI.openRoutes == ["/healthz", "/readyz", "/openapi.json"])
        let levels = Self.levels(
            [
                Self.entry("/healthz", status: 200), Self.entry("/readyz", status: 200),
                Self.entry("/openapi.json", status: 200), Self.entry("/v1/users/{userId}/devices", status: 200),
                Self.entry("/readyz", status: 503), Self.entry("/v1/devices", status: 401),
            ],
            quiet: api
        )
        #expect(levels == [.debug, .debug, .debug, .info, .info, .info])
    }

    /// Lines past a budget are left out and counted: a flood of a user's own calls writes its budget's lines
    /// and one report of the rest; refusals have a budget of their own.
    @Test func answeredAndRefusedLinesEachTakeTheirBudget() {
        let lines = MemoryLogHandler()
        let log = AccessLog(
            metrics: nil,
            logger: Logger(label: "test", level: .info, handler: lines),
            quiet: .routes(RelayAPI.openRoutes),
            budgets: .init(
                refusals: LogBudget(limit: 1, interval: .seconds(3_600)),
                answers: LogBudget(limit: 2, interval: .seconds(3_600))
            )
        )
        for _ in 0..<5 { log.record(Self.entry("/v1/users/{userId}/devices", status: 200)) }
        for _ in 0..<3 { log.record(Self.entry("/v1/devices", status: 401)) }
        log.flush()
        let statuses = lines.entries.filter { $0.message == "request" }.map { $0.metadata["http.status"] }
        #expect(statuses == ["200", "200", "401"])
        let reports = lines.entries.filter { $0.message.hasSuffix("requests not logged") }
        #expect(reports.map(\.message) == ["refused requests not logged", "answered requests not logged"])
        #expect(reports.map { $0.metadata["count"] } == ["2", "3"])
    }

    /// The two listeners' logs share one budget: a flood split between them writes no more than one would.
    @Test func theListenersShareTheirBudgets() {
        let lines = MemoryLogHandler()
        let logger = Logger(label: "test", level: .info, handler: lines)
        let budgets = AccessLog.Budgets(
            refusals: LogBudget(limit: 2, interval: .seconds(3_600)),
            answers: LogBudget(limit: 2, interval: .seconds(3_600))
        )
        let api = AccessLog(metrics: nil, logger: logger, quiet: .routes(RelayAPI.openRoutes), budgets: budgets)
        let admin = AccessLog(metrics: nil, logger: logger, quiet: .all, budgets: budgets)
        for _ in 0..<3 {
            api.record(Self.entry(nil, status: 404))
            admin.record(Self.entry(nil, status: 404))
        }
        #expect(lines.entries.filter { $0.message == "request" }.count == 2)
    }

    @Test func theAdminListenersSuccessesAreAllDebug() {
        let levels = Self.levels(
            [Self.entry("/metrics", status: 200), Self.entry("/readyz", status: 200), Self.entry(nil, status: 404)],
            quiet: .all
        )
        #expect(levels == [.debug, .debug, .info])
    }
}
