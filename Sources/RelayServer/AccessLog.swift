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
/// Each `info` line takes a ``RelayCore/LogBudget``: lines of refused requests (4xx, 501, 505: what a
/// stranger can cause without a credential) ``refusedLinesPerSecond`` a second, the others
/// ``answeredLinesPerSecond``; the lines past a budget are counted and reported in a `refused requests not
/// logged` or `answered requests not logged` line with the next line let through, so a flood, a stranger's
/// or a user's, writes a bounded number of lines a second. The relay's two listeners share the budgets
/// (``Budgets``), so the caps hold for the process.
final class AccessLog: Sendable {
    /// Access log lines of refused requests written in one second.
    static let refusedLinesPerSecond = 20
    /// Access log lines of other requests written at `info` in one second: a relay answering more calls
    /// than that logs a sample of them (every call is still counted in `pushrelay_http_requests_total`).
    static let answeredLinesPerSecond = 200

    /// Which routes' successes are logged at `debug`.
    enum QuietSuccesses: Sendable {
        /// Every route's (the admin listener's).
        case all
        /// Those of these route patterns (routes that take no credential).
        case routes(Set<String>)
    }

    /// The budgets of the `info` lines of refused and of answered requests.
    struct Budgets: Sendable {
        var refusals: LogBudget
        var answers: LogBudget

        /// ``refusedLinesPerSecond`` and ``answeredLinesPerSecond`` lines a second.
        static func perSecond() -> Budgets {
            Budgets(
                refusals: LogBudget(limit: refusedLinesPerSecond, interval: .seconds(1)),
                answers: LogBudget(limit: answeredLinesPerSecond, interval: .seconds(1))
            )
        }
    }

    /// Where requests are counted; nil for the admin listener.
    private let metrics: RelayMetrics?
    private let logger: Logger
    private let quiet: QuietSuccesses
    private let refusals: LogBudget
    private let answers: LogBudget

    init(metrics: RelayMetrics?, logger: Logger, quiet: QuietSuccesses, budgets: Budgets) {
        self.metrics = metrics
        self.logger = logger
        self.quiet = quiet
        self.refusals = budgets.refusals
        self.answers = budgets.answers
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

    /// Counts `entry` (with metrics) and logs it (an `info` line within its budget).
    func record(_ entry: AccessLogEntry) {
        let route = entry.route ?? "unmatched"
        metrics?.recordRequest(route: route, method: entry.method, status: entry.status)
        let level = level(route: route, status: entry.status)
        guard logger.level <= level else { return }
        if level == .info {
            let refused = Self.isRefusal(entry.status)
            switch (refused ? refusals : answers).admit() {
            case .suppress: return
            case .log(let suppressed): reportSuppressed(suppressed, refused: refused)
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

    /// Logs the lines left out since the last report, if any (at shutdown).
    func flush() {
        reportSuppressed(refusals.takeSuppressed(), refused: true)
        reportSuppressed(answers.takeSuppressed(), refused: false)
    }

    private func reportSuppressed(_ count: Int, refused: Bool) {
        guard count > 0 else { return }
        logger.warning(
            refused ? "refused requests not logged" : "answered requests not logged",
            ["count": count, "budget_per_second": refused ? Self.refusedLinesPerSecond : Self.answeredLinesPerSecond]
        )
    }
}
