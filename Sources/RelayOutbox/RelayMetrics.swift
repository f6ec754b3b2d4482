import Foundation
import RelayCore
import RelayStore
import Synchronization

/// The relay's counters, histograms and gauges, rendered in the Prometheus text exposition format (version
/// 0.0.4) at `/metrics` from memory alone: a scrape never waits on the store (gauges read from the store are
/// set by background jobs, ``setGauges(_:_:)``).
///
/// Every label takes its values from a closed set, so nothing a client or a push service sends adds a
/// series: `app` only a configured app id (else `none`), `method` only a method of RFC 9110 or PATCH (else
/// `other`), `reason` only a reason the relay knows (``MetricLabels/relayReasons`` and the transports'
/// ``RelayCore/PushTransport/reasons``, else `other`); `route` is a route pattern of the code or
/// `unmatched`, `status` a status the server sends (100...599), and `event`, `limit`, `outcome`, `platform`,
/// `environment` and `state` are named by the code. The series of every
/// configured app and closed label value are there from the start, at zero (``MetricCatalog``).
public final class RelayMetrics: Sendable {
    struct State {
        var counters: [String: [Labels: Double]] = [:]
        /// `pushrelay_notifications_total`, kept apart from `counters`: one is counted per push sent, so its
        /// key is a plain set of strings rather than a label list, and its total is kept as it goes.
        var outcomes: [Outcome: Int] = [:]
        var attemptsDecided = 0
        /// Waits of ``waitUntilAttemptsDecided(_:)``, by id: the count each waits for.
        var attemptWaiters: [UInt64: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:] {
            didSet { firstAwaitedCount = attemptWaiters.values.lazy.map(\.count).min() ?? .max }
        }
        /// The smallest count a waiter waits for (`Int.max` without one), so that an attempt before it looks
        /// at no waiter.
        var firstAwaitedCount = Int.max
        var nextWaiterId: UInt64 = 0
        /// `pushrelay_push_duration_seconds` and `pushrelay_accepted_to_answered_seconds`: observed for nearly
        /// every push, so kept apart from `counters` as `outcomes` is, by app and platform.
        var answers: [Series: Answers] = [:]
        var gauges: [String: [Labels: Double]] = [:]
    }

    /// A delivery attempt's labels in `pushrelay_notifications_total`.
    struct Outcome: Hashable {
        var app: String
        var platform: Platform
        var outcome: String
        var reason: String
    }

    /// An app and platform: the labels of the push services' answer times.
    struct Series: Hashable {
        var app: String
        var platform: Platform
        var labels: [(String, String)] { [("app", app), ("platform", platform.rawValue)] }
    }

    /// One series of each answer-time histogram.
    struct Answers {
        var duration = MetricHistogram(bounds: MetricCatalog.pushBuckets)
        var acceptedToAnswered = MetricHistogram(bounds: MetricCatalog.answeredBuckets)
    }

    /// Label pairs in a fixed order.
    struct Labels: Hashable {
        var pairs: [(String, String)]
        static func == (a: Labels, b: Labels) -> Bool { a.pairs.elementsEqual(b.pairs) { $0 == $1 } }
        func hash(into hasher: inout Hasher) {
            for (k, v) in pairs {
                hasher.combine(k)
                hasher.combine(v)
            }
        }
        var text: String {
            pairs.isEmpty ? "" : "{" + pairs.map { "\($0)=\"\(escape($1))\"" }.joined(separator: ",") + "}"
        }
        private func escape(_ value: String) -> String {
            value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
        }
    }

    let state: Mutex<State>
    /// The `app` label's values besides `none`.
    let appIds: Set<String>
    /// The `reason` label's values besides `other` and `HTTP <status>`.
    let reasons: Set<String>

    /// - Parameters:
    ///   - appIds: the configured apps: the only values of the `app` label besides `none`.
    ///   - dittoAppIds: the apps with `apps[].ditto`, whose Ditto counters start at zero.
    ///   - reasons: the push services' reasons (``RelayCore/PushTransport/reasons``), which the `reason`
    ///     label takes besides the relay's own.
    public init(
        appIds: some Sequence<String> = [String](),
        dittoAppIds: some Sequence<String> = [String](),
        reasons: some Sequence<String> = [String]()
    ) {
        self.appIds = Set(appIds)
        self.reasons = MetricLabels.relayReasons.union(reasons)
        state = Mutex(MetricCatalog.initialState(appIds: self.appIds.sorted(), dittoAppIds: Set(dittoAppIds).sorted()))
    }

    /// `app` when it is a configured app, else `none`.
    func appLabel(_ app: String) -> String { appIds.contains(app) ? app : "none" }

    func increment(_ name: String, _ labels: [(String, String)], by amount: Double = 1) {
        state.withLock { $0.counters[name, default: [:]][Labels(pairs: labels), default: 0] += amount }
    }

    /// A webhook accepted for a configured app, by event (`did_send_message`, `did_send_image_message`).
    public func recordWebhook(_ event: String, app: String) {
        increment(MetricCatalog.webhooks, [("app", appLabel(app)), ("event", event)])
    }

    /// A batch of an app's Ditto change events applied, counted by collection kind and outcome (both closed
    /// sets: ``DittoApplyCounts/outcomes``), and the requeries it raised by app.
    public func recordDittoEvents(_ counts: DittoApplyCounts, app: String) {
        let app = appLabel(app)
        for (collection, outcomes) in counts.outcomes {
            for (outcome, count) in outcomes where count > 0 {
                increment(
                    MetricCatalog.dittoEvents,
                    [
                        ("app", app), ("collection", MetricLabels.dittoCollection(collection)),
                        ("outcome", outcome.rawValue),
                    ],
                    by: Double(count)
                )
            }
        }
        if counts.requeries > 0 {
            increment(MetricCatalog.dittoRequeries, [("app", app)], by: Double(counts.requeries))
        }
    }

    /// A call refused by one of the limits, 429 or 409 for a count (``MetricLabels/rateLimits``; another name
    /// counts as `other`).
    public func recordRateLimited(limit: String) {
        increment(MetricCatalog.rateLimited, [("limit", MetricLabels.rateLimit(limit))])
    }

    /// One feedback POST's outcome: `delivered` (2xx), `retry`, `expired` (dropped after its lifetime) or
    /// `dropped` (the app has no feedbackURL any more).
    public func recordFeedback(_ outcome: String) {
        increment(MetricCatalog.feedback, [("outcome", outcome)])
    }

    /// An HTTP request to the API's listener answered, by route pattern (`unmatched` when none matched),
    /// method (`other` for one outside ``MetricLabels/methods``) and status.
    public func recordRequest(route: String, method: String, status: Int) {
        increment(
            MetricCatalog.httpRequests,
            [("route", route), ("method", MetricLabels.method(method)), ("status", MetricLabels.status(status))]
        )
    }

    /// Starts the `pushrelay_http_requests_total` series of `POST` to each of `routes` with each of
    /// `statuses` at zero, so that the first such answers are an increase an alert sees (a series that
    /// appears with its first count is not one to `increase()`).
    public func zeroRequests(routes: [String], statuses: [Int]) {
        state.withLock { state in
            for route in routes {
                for status in statuses {
                    let labels = Labels(pairs: [("route", route), ("method", "POST"), ("status", "\(status)")])
                    state.counters[MetricCatalog.httpRequests, default: [:]][labels, default: 0] += 0
                }
            }
        }
    }

    /// The exposition text; `scraped` adds values read at scrape time from memory (a Kafka consumer's lag).
    public func render(scraped: [ScrapedSample] = []) -> String {
        let snapshot = state.withLock { $0 }
        var counters = snapshot.counters
        for (key, count) in snapshot.outcomes {
            let labels = Labels(
                pairs: [
                    ("app", key.app), ("platform", key.platform.rawValue), ("outcome", key.outcome),
                    ("reason", key.reason),
                ]
            )
            counters[MetricCatalog.outcomes, default: [:]][labels] = Double(count)
        }
        var out = ""
        for name in counters.keys.sorted() {
            out += MetricCatalog.header(name, type: "counter")
            for (labels, value) in counters[name]!.sorted(by: { $0.key.text < $1.key.text }) {
                out += "\(name)\(labels.text) \(Self.number(value))\n"
            }
        }
        let answers = snapshot.answers.sorted {
            ($0.key.app, $0.key.platform.rawValue) < ($1.key.app, $1.key.platform.rawValue)
        }
        for (name, histogram) in [
            (MetricCatalog.acceptedToAnswered, \Answers.acceptedToAnswered), (MetricCatalog.pushDuration, \.duration),
        ] where !answers.isEmpty {
            out += MetricCatalog.header(name, type: "histogram")
            for (series, times) in answers { out += times[keyPath: histogram].lines(name: name, labels: series.labels) }
        }
        for name in snapshot.gauges.keys.sorted() {
            out += MetricCatalog.header(name, type: "gauge")
            for (labels, value) in snapshot.gauges[name]!.sorted(by: { $0.key.text < $1.key.text }) {
                out += "\(name)\(labels.text) \(Self.number(value))\n"
            }
        }
        var described = Set<String>()
        for sample in scraped {
            if described.insert(sample.name).inserted {
                out += "# HELP \(sample.name) \(sample.help)\n# TYPE \(sample.name) \(sample.kind.rawValue)\n"
            }
            out += "\(sample.name)\(Labels(pairs: sample.labels).text) \(Self.number(sample.value))\n"
        }
        return out
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
