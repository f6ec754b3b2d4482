import RelayCore
import RelayOutbox
import Testing

@testable import RelayHTTP
@testable import RelayServer

/// Which access lines are written at `info`: what a credential made and refusals, each kind within its
/// budget; what the routes anyone may call answer (refusals aside) is at `debug`, so a stranger cannot write
/// lines without a bound.
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

    /// An access log over `lines`, of the API listener (`open` its open routes) or of the admin listener.
    static func log(
        _ lines: MemoryLogHandler,
        open: AccessLog.OpenRoutes,
        level: Logger.Level = .debug,
        budgets: AccessLog.Budgets = AccessLog.Budgets()
    ) -> AccessLog {
        AccessLog(
            metrics: RelayMetrics(appIds: ["app0"]),
            logger: Logger(label: "test", level: level, handler: lines),
            open: open,
            budgets: budgets
        )
    }

    /// The levels of the `request` lines `entries` write through a log of `open`.
    static func levels(_ entries: [AccessLogEntry], open: AccessLog.OpenRoutes) -> [Logger.Level] {
        let lines = MemoryLogHandler()
        entries.forEach(log(lines, open: open).record)
        return lines.entries.filter { $0.message == "request" }.map(\.level)
    }

    @Test func theOpenRoutesAnswersAreDebugAndTheRestInfo() {
        #expect(RelayAPI.openRoutes == ["/healthz", "/readyz", "/openapi.json"])
        let levels = Self.levels(
            [
                Self.entry("/healthz", status: 200), Self.entry("/readyz", status: 200),
                Self.entry("/openapi.json", status: 200), Self.entry("/readyz", status: 503),
                Self.entry("/readyz", status: 405), Self.entry("/v1/users/{userId}/devices", status: 200),
                Self.entry("/v1/users/{userId}/devices", status: 503), Self.entry("/v1/devices", status: 401),
            ],
            open: .routes(RelayAPI.openRoutes)
        )
        #expect(levels == [.debug, .debug, .debug, .debug, .info, .info, .info, .info])
    }

    @Test func theAdminListenersAnswersAreAllDebugButRefusals() {
        let levels = Self.levels(
            [Self.entry("/metrics", status: 200), Self.entry("/readyz", status: 503), Self.entry(nil, status: 404)],
            open: .all
        )
        #expect(levels == [.debug, .debug, .info])
    }

    /// Lines past a budget are left out and counted; each kind has its own, so a flood of a user's own calls
    /// leaves the refusals' and the failures' lines.
    @Test func eachKindOfLineTakesItsOwnBudget() {
        let lines = MemoryLogHandler()
        let log = Self.log(
            lines,
            open: .routes(RelayAPI.openRoutes),
            level: .info,
            budgets: AccessLog.Budgets(lines: { $0 == .answered ? 2 : 1 }, interval: .seconds(3_600))
        )
        for _ in 0..<5 { log.record(Self.entry("/v1/users/{userId}/devices", status: 200)) }
        for _ in 0..<3 { log.record(Self.entry("/v1/devices", status: 401)) }
        for _ in 0..<2 { log.record(Self.entry("/v1/devices", status: 503)) }
        log.flush()
        let statuses = lines.entries.filter { $0.message == "request" }.map { $0.metadata["http.status"] }
        #expect(statuses == ["200", "200", "401", "503"])
        let reports = lines.entries.filter { $0.message.hasSuffix("requests not logged") }
        #expect(
            reports.map(\.message) == [
                "refused requests not logged", "failed requests not logged", "answered requests not logged",
            ]
        )
        #expect(reports.map { $0.metadata["count"] } == ["2", "1", "3"])
    }

    /// The two listeners' logs share one set of budgets: a flood split between them writes no more than
    /// one would.
    @Test func theListenersShareTheirBudgets() {
        let lines = MemoryLogHandler()
        let budgets = AccessLog.Budgets(lines: { _ in 2 }, interval: .seconds(3_600))
        let api = Self.log(lines, open: .routes(RelayAPI.openRoutes), level: .info, budgets: budgets)
        let admin = Self.log(lines, open: .all, level: .info, budgets: budgets)
        for _ in 0..<3 {
            api.record(Self.entry(nil, status: 404))
            admin.record(Self.entry(nil, status: 404))
        }
        #expect(lines.entries.filter { $0.message == "request" }.count == 2)
    }
}
