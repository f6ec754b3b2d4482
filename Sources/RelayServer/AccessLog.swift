import RelayCore
import RelayHTTP
import RelayOutbox

/// What the relay does with each answered request: counts it in `pushrelay_http_requests_total` (the API's
/// listener only: admin scrapes and probes are not API traffic) and writes its access log line (the route
/// pattern, never the path, which can hold a device token; the method cut to ``RelayCore/LogText/maxBytes``).
/// A request that succeeded is logged at `debug` where it needs no credential (``QuietSuccesses``): every
/// route of the admin listener (scrapes and probes, every few seconds), and the API listener's open routes
/// (its probes and the OpenAPI document); the others at `info`.
///
/// What a stranger can cause without a credential is thus bounded: lines of refused requests (4xx, 501,
/// 505) take a ``RelayCore/LogBudget`` of ``refusedLinesPerSecond`` a second; the rest are counted and
/// reported in a `refused requests not logged` line with the next line let through, so a flood writes a
/// bounded number of lines a second.
final class AccessLog: Sendable {
    /// Access log lines of refused requests written in one second.
    static let refusedLinesPerSecond = 20

    /// Which routes' successes are logged at `debug`.
    enum QuietSuccesses: Sendable {
        /// Every route's (the admin listener's).
        case all
        /// Those of these route patterns (routes that take no credential).
        case routes(Set<String>)
    }

    /// Where requests are counted; nil for the admin listener.
    private let metrics: RelayMetrics?
    private let logger: Logger
    private let quiet: QuietSuccesses
    private let refusals: LogBudget

    init(
        metrics: RelayMetrics?,
        logger: Logger,
        quiet: QuietSuccesses,
        refusals: LogBudget = LogBudget(limit: refusedLinesPerSecond, interval: .seconds(1))
    ) {
        self.metrics = metrics
        self.logger = logger
        self.quiet = quiet
        self.refusals = refusals
    }

    /// The level of a line of `route` answered `status`.
    private func level(route: String, status: Int) -> Logger.Level {
        guard (200..<300).contains(status) else { return .info }
        switch quiet {
        case .all: return .debug
        case .routes(let routes): return routes.contains(route) ? .debug : .info
        }
    }

    /// Whether a status refuses the request (4xx, 501 Not Implemented, 505 HTTP Version Not Supported).
    static func isRefusal(_ status: Int) -> Bool { (400..<500).contains(status) || status == 501 || status == 505 }

    /// Counts `entry` (with metrics) and logs it (a refusal within the budget).
    func record(_ entry: AccessLogEntry) {
        let route = entry.route ?? "unmatched"
        metrics?.recordRequest(route: route, method: entry.method, status: entry.status)
        let level = level(route: route, status: entry.status)
        guard logger.level <= level else { return }
        if Self.isRefusal(entry.status) {
            switch refusals.admit() {
            case .suppress: return
            case .log(let suppressed): reportSuppressed(suppressed)
            }
        }
        logger.log(
            level,
            "request",
            [
                "request.id": entry.requestID, "http.method": LogText.clipped(entry.method), "http.route": route,
                "http.status": entry.status, "duration_ms": (entry.durationMilliseconds * 10).rounded() / 10,
                "client.address": entry.clientAddress,
            ]
        )
    }

    /// Logs the refusals left out since the last report, if any (at shutdown).
    func flush() { reportSuppressed(refusals.takeSuppressed()) }

    private func reportSuppressed(_ count: Int) {
        guard count > 0 else { return }
        logger.warning(
            "refused requests not logged",
            ["count": count, "budget_per_second": Self.refusedLinesPerSecond]
        )
    }
}
