import Foundation
import RelayCore
import RelayStore
import Synchronization

/// The relay's counters and histograms, rendered in the Prometheus text exposition format (version 0.0.4)
/// at `/metrics`.
///
/// Every label takes its values from a closed set, so nothing a client or a push service sends adds a
/// series: `app` only a configured app id (else `none`), `method` only a method of RFC 9110 or PATCH (else
/// `other`), `reason` only a reason the relay knows (``MetricLabels/reasons``, else `other`); `route` is a
/// route pattern of the code or `unmatched`, `status` a status the server sends (100...599), and `event`,
/// `limit`, `outcome`, `platform` and `state` are named by the code.
public final class RelayMetrics: Sendable {
    /// Upper bounds of the push services' latency histograms, in SECONDS.
    static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct State {
        var counters: [String: [Labels: Double]] = [:]
        /// `pushrelay_notifications_total`, kept apart from `counters`: one is counted per push sent, so its
        /// key is a plain pair of strings rather than a label list, and its total is kept as it goes.
        var outcomes: [Outcome: Int] = [:]
        var attemptsDecided = 0
        /// Waits of ``waitUntilAttemptsDecided(_:)``, by id: the count each waits for.
        var attemptWaiters: [UInt64: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiterId: UInt64 = 0
        var latency: [Platform: Histogram] = [:]
    }

    /// One platform's latency histogram.
    private struct Histogram {
        var counts = [Int](repeating: 0, count: RelayMetrics.latencyBuckets.count)
        var sum = 0.0
        var total = 0
    }

    /// The histogram of each platform's answer times.
    private static func latencyMetric(_ platform: Platform) -> (name: String, help: String) {
        switch platform {
        case .ios: ("pushrelay_apns_request_duration_seconds", "Time APNs took to answer.")
        case .android: ("pushrelay_fcm_request_duration_seconds", "Time FCM took to answer.")
        }
    }

    /// A delivery attempt's `outcome` and `reason` labels.
    private struct Outcome: Hashable {
        var app: String
        var platform: Platform
        var outcome: String
        var reason: String
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

    private let state = Mutex(State())
    /// The `app` label's values besides `none`.
    private let appIds: Set<String>

    /// - Parameter appIds: the configured apps: the only values of the `app` label besides `none`.
    public init(appIds: some Sequence<String> = [String]()) {
        self.appIds = Set(appIds)
    }

    func increment(_ name: String, _ labels: [(String, String)], by amount: Double = 1) {
        state.withLock { $0.counters[name, default: [:]][Labels(pairs: labels), default: 0] += amount }
    }

    /// One delivery attempt's outcome (`sent`, `retry`, `failed`, `retired`, `unlinked`) and the service's
    /// reason, for its app and its device's platform.
    public func recordOutcome(_ outcome: String, reason: String, app: String, platform: Platform) {
        let key = Outcome(
            app: appIds.contains(app) ? app : "none",
            platform: platform,
            outcome: outcome,
            reason: MetricLabels.reason(reason)
        )
        let reached = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.outcomes[key, default: 0] += 1
            state.attemptsDecided += 1
            guard !state.attemptWaiters.isEmpty else { return [] }
            let decided = state.attemptsDecided
            let ids = state.attemptWaiters.filter { $0.value.count <= decided }.map(\.key)
            return ids.compactMap { state.attemptWaiters.removeValue(forKey: $0)?.continuation }
        }
        for continuation in reached { continuation.resume() }
    }

    /// Delivery attempts decided so far, whatever their outcome (``recordOutcome(_:reason:app:platform:)``
    /// calls).
    public var attemptsDecided: Int { state.withLock { $0.attemptsDecided } }

    /// Returns once ``attemptsDecided`` is at least `count`, or when the task is cancelled: for benchmarks and
    /// tests that wait for a fan-out's last push without polling (a poll wakes a thread on the cores the
    /// sends need, or sees the end late).
    public func waitUntilAttemptsDecided(_ count: Int) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterId += 1
            return state.nextWaiterId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waits = state.withLock { state -> Bool in
                    guard state.attemptsDecided < count, !Task.isCancelled else { return false }
                    state.attemptWaiters[id] = (count, continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.attemptWaiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    private static let outcomes = "pushrelay_notifications_total"

    /// A webhook accepted, by event (`did_send_message`, `did_send_image_message`).
    public func recordWebhook(_ event: String) {
        increment("pushrelay_webhooks_total", [("event", event)])
    }

    /// A batch of an app's Ditto change events applied, counted by collection kind and outcome (both closed
    /// sets: ``DittoApplyCounts/outcomes``), and the requeries it raised by app.
    public func recordDittoEvents(_ counts: DittoApplyCounts, app: String) {
        let app = appIds.contains(app) ? app : "none"
        for (collection, outcomes) in counts.outcomes {
            for (outcome, count) in outcomes where count > 0 {
                increment(
                    "pushrelay_ditto_events_total",
                    [
                        ("app", app), ("collection", MetricLabels.dittoCollection(collection)),
                        ("outcome", outcome.rawValue),
                    ],
                    by: Double(count)
                )
            }
        }
        if counts.requeries > 0 {
            increment("pushrelay_ditto_requeries_total", [("app", app)], by: Double(counts.requeries))
        }
    }

    /// A call refused 429 by one of the per-user limits (`webhooks`, `pushes_per_recipient`, `devices`,
    /// `rooms`).
    public func recordRateLimited(limit: String) {
        increment("pushrelay_rate_limited_total", [("limit", limit)])
    }

    /// One feedback POST's outcome: `delivered` (2xx), `retry`, `expired` (dropped after its lifetime) or
    /// `dropped` (the app has no feedbackURL any more).
    public func recordFeedback(_ outcome: String) {
        increment("pushrelay_feedback_total", [("outcome", outcome)])
    }

    /// An HTTP request answered, by route pattern (`unmatched` when none matched), method (`other` for one
    /// outside ``MetricLabels/methods``) and status.
    public func recordRequest(route: String, method: String, status: Int) {
        increment(
            "pushrelay_http_requests_total",
            [("route", route), ("method", MetricLabels.method(method)), ("status", MetricLabels.status(status))]
        )
    }

    /// The time a push service took to answer one delivery's attempt.
    public func recordLatency(_ duration: Duration, platform: Platform) {
        let seconds = duration.timeInterval
        state.withLock { state in
            var histogram = state.latency[platform] ?? Histogram()
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound {
                histogram.counts[index] += 1
            }
            histogram.sum += seconds
            histogram.total += 1
            state.latency[platform] = histogram
        }
    }

    /// The exposition text; `gauges` adds values read at scrape time (outbox pending, devices by state).
    public func render(gauges: [(name: String, help: String, labels: [(String, String)], value: Double)] = []) -> String
    {
        let snapshot = state.withLock { $0 }
        var counters = snapshot.counters
        for (key, count) in snapshot.outcomes {
            let labels = Labels(
                pairs: [
                    ("app", key.app), ("platform", key.platform.rawValue), ("outcome", key.outcome),
                    ("reason", key.reason),
                ]
            )
            counters[Self.outcomes, default: [:]][labels] = Double(count)
        }
        var out = ""
        let help = [
            "pushrelay_notifications_total": "Delivery attempts by app, platform, outcome and the service's reason.",
            "pushrelay_webhooks_total": "Webhooks accepted by event.",
            "pushrelay_http_requests_total": "HTTP requests by route, method and status.",
            "pushrelay_feedback_total": "Feedback POSTs of retired tokens by outcome.",
            "pushrelay_ditto_events_total": "Ditto change events by app, collection kind and outcome.",
            "pushrelay_ditto_requeries_total": "Ditto requeryRequired events that raised an app's pending requery.",
            "pushrelay_rate_limited_total": "Calls refused 429 by a per-user limit, by limit.",
            "pushrelay_wake_decisions_total": "Deliveries that asked to wake, by app, platform and decision.",
            "pushrelay_badge_updates_total": "Badge update attempts by app, platform and outcome.",
        ]
        for name in counters.keys.sorted() {
            out += "# HELP \(name) \(help[name] ?? name)\n# TYPE \(name) counter\n"
            for (labels, value) in counters[name]!.sorted(by: { $0.key.text < $1.key.text }) {
                out += "\(name)\(labels.text) \(Self.number(value))\n"
            }
        }
        for platform in Platform.allCases {
            let (name, text) = Self.latencyMetric(platform)
            let histogram = snapshot.latency[platform] ?? Histogram()
            out += "# HELP \(name) \(text)\n# TYPE \(name) histogram\n"
            for (index, bound) in Self.latencyBuckets.enumerated() {
                out += "\(name)_bucket{le=\"\(bound)\"} \(histogram.counts[index])\n"
            }
            out += "\(name)_bucket{le=\"+Inf\"} \(histogram.total)\n"
            out += "\(name)_sum \(histogram.sum)\n\(name)_count \(histogram.total)\n"
        }
        var described = Set<String>()
        for gauge in gauges {
            if described.insert(gauge.name).inserted {
                out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n"
            }
            out += "\(gauge.name)\(Labels(pairs: gauge.labels).text) \(Self.number(gauge.value))\n"
        }
        return out
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
