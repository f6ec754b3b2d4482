import RelayCore
import RelayHTTP
import RelayOutbox

/// What the relay does with each answered request: counts it in `pushrelay_http_requests_total` (the API's
/// listener only: admin scrapes and probes are not API traffic) and writes its access log line (the route
/// pattern, never the path, which can hold a device token; the method cut to ``RelayCore/LogText/maxBytes``).
///
/// A route anyone may call without a credential (``OpenRoutes``: every route of the admin listener, and the
/// API listener's probes and OpenAPI document) logs what it answers at `debug`, unless it refused the
/// request. Every other line is at `info` and takes the ``RelayCore/LogBudget`` of its ``Kind`` (refused,
/// failed or answered), shared by the relay's listeners (``Budgets``): the lines past a budget are counted
/// and reported in a `… requests not logged` line with the next line let through, so a flood, a stranger's
/// or a user's, writes a bounded number of lines a second, and one kind's flood leaves the others' lines.
final class AccessLog: Sendable {
    /// Which budget an answered request's line takes.
    enum Kind: String, Sendable, CaseIterable {
        /// 4xx, 501 Not Implemented, 505 HTTP Version Not Supported: what a stranger can cause.
        case refused
        /// Another 5xx: the relay, its store or a service it asks failed.
        case failed
        /// The rest: what a caller asked for, done.
        case answered

        init(status: Int) {
            if (400..<500).contains(status) || status == 501 || status == 505 {
                self = .refused
            } else if (500..<600).contains(status) {
                self = .failed
            } else {
                self = .answered
            }
        }

        /// Lines of this kind written at `info` in one second. A relay answering more calls than that logs
        /// a sample of them (every call is still counted in `pushrelay_http_requests_total`).
        var linesPerSecond: Int {
            switch self {
            case .refused, .failed: 20
            case .answered: 200
            }
        }
    }

    /// The routes that take no credential, whose answers other than refusals are logged at `debug`.
    enum OpenRoutes: Sendable {
        /// Every route (the admin listener's: scrapes and probes, every few seconds).
        case all
        /// These route patterns.
        case routes(Set<String>)

        func contains(_ route: String) -> Bool {
            switch self {
            case .all: true
            case .routes(let routes): routes.contains(route)
            }
        }
    }

    /// One ``RelayCore/LogBudget`` per ``Kind``, made once for the relay and given to each listener's log.
    final class Budgets: Sendable {
        private let budgets: [Kind: LogBudget]

        /// - Parameters:
        ///   - lines: the lines of a kind let through in one `interval`.
        init(lines: (Kind) -> Int = \.linesPerSecond, interval: Duration = .seconds(1)) {
            budgets = Dictionary(
                uniqueKeysWithValues: Kind.allCases.map {
                    ($0, LogBudget(limit: lines($0), interval: interval, lines: "\($0.rawValue) requests"))
                }
            )
        }

        subscript(kind: Kind) -> LogBudget { budgets[kind]! }
    }

    /// Where requests are counted; nil for the admin listener.
    private let metrics: RelayMetrics?
    private let logger: Logger
    private let open: OpenRoutes
    private let budgets: Budgets

    init(metrics: RelayMetrics?, logger: Logger, open: OpenRoutes, budgets: Budgets) {
        self.metrics = metrics
        self.logger = logger
        self.open = open
        self.budgets = budgets
    }

    /// Counts `entry` (with metrics) and logs it (an `info` line within its budget).
    func record(_ entry: AccessLogEntry) {
        let route = entry.route ?? "unmatched"
        metrics?.recordRequest(route: route, method: entry.method, status: entry.status)
        let kind = Kind(status: entry.status)
        let level: Logger.Level = kind != .refused && open.contains(route) ? .debug : .info
        guard logger.level <= level else { return }
        if level == .info, !budgets[kind].admit(reporting: logger) { return }
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

    /// Logs the lines of every kind left out since their last report, if any (at shutdown; once for the
    /// relay, since its listeners' logs share the budgets).
    func flush() {
        for kind in Kind.allCases { budgets[kind].flush(to: logger) }
    }
}
