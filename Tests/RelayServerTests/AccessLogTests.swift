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
            quiet: quiet
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

    @Test func theAdminListenersSuccessesAreAllDebug() {
        let levels = Self.levels(
            [Self.entry("/metrics", status: 200), Self.entry("/readyz", status: 200), Self.entry(nil, status: 404)],
            quiet: .all
        )
        #expect(levels == [.debug, .debug, .info])
    }
}
