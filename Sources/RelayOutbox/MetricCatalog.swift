import RelayCore
import RelayStore

/// Every metric the relay exposes: its name, help text and, for histograms, bucket bounds, and the series
/// present from the start at zero: each configured app with each closed label value, so a counter's first
/// event is a rise from zero that `rate()` and `increase()` see.
public enum MetricCatalog {
    public static let outcomes = "pushrelay_notifications_total"
    public static let webhooks = "pushrelay_webhooks_total"
    public static let httpRequests = "pushrelay_http_requests_total"
    public static let feedback = "pushrelay_feedback_total"
    public static let dittoEvents = "pushrelay_ditto_events_total"
    public static let dittoRequeries = "pushrelay_ditto_requeries_total"
    public static let rateLimited = "pushrelay_rate_limited_total"
    public static let wakeDecisions = "pushrelay_wake_decisions_total"
    public static let badgeUpdates = "pushrelay_badge_updates_total"
    public static let pushDuration = "pushrelay_push_duration_seconds"
    public static let acceptedToAnswered = "pushrelay_accepted_to_answered_seconds"
    public static let storageUp = "pushrelay_storage_up"
    public static let providerPaused = "pushrelay_provider_paused"
    public static let providerUnreachable = "pushrelay_provider_unreachable"
    public static let buildInfo = "pushrelay_build_info"
    public static let outboxPending = "pushrelay_outbox_pending"
    public static let outboxDue = "pushrelay_outbox_due"
    public static let outboxLeased = "pushrelay_outbox_leased"
    public static let outboxOldestAge = "pushrelay_outbox_oldest_pending_age_seconds"
    public static let outboxReporter = "pushrelay_outbox_reporter"
    public static let devices = "pushrelay_devices"
    public static let feedbackPending = "pushrelay_feedback_pending"

    /// Help text by metric name.
    static let help: [String: String] = [
        outcomes: "Delivery attempts by app, platform, outcome and the service's reason.",
        webhooks: "Webhooks accepted by app and event.",
        httpRequests: "Requests to the API's listener by route, method and status (admin scrapes not counted).",
        feedback: "Feedback POSTs of retired tokens by outcome.",
        dittoEvents: "Ditto change events by app, collection kind and outcome.",
        dittoRequeries: "Ditto requeryRequired events that raised an app's pending requery.",
        rateLimited: "Calls refused by a limit (429, or 409 for a count), by limit.",
        wakeDecisions: "Deliveries that asked to wake, by app, platform and decision.",
        badgeUpdates: "Badge update attempts after reads elsewhere, by app, platform and outcome.",
        pushDuration: "Time a push service (APNs, FCM) took to answer one attempt, by app and platform.",
        acceptedToAnswered:
            "Time from a notification accepted (webhook or Ditto event) to the push service's answer that ended "
            + "its delivery, less the app's grace window, by app and platform.",
        storageUp:
            "1 while this relay's storage probe passes (a small committed write) and no call found the store "
            + "damaged, else 0.",
        providerPaused: "1 while an app's sends are paused because the push service refuses its credentials.",
        providerUnreachable: "1 while an app's sends are paused because the push service does not answer.",
        buildInfo: "Always 1; the labels name the relay's version and its libcurl.",
        outboxPending: "Deliveries not yet finished, by app (reported by one relay: pushrelay_outbox_reporter).",
        outboxDue: "Pending deliveries due now and not leased (waiting for a send slot), by app.",
        outboxLeased: "Pending deliveries leased to a relay (being sent), by app.",
        outboxOldestAge:
            "Seconds since the due time of the app's oldest delivery due now, leased or not (0 when none is due).",
        outboxReporter: "1 on the one relay that reports the store's figures (outbox, devices, feedback), else 0.",
        devices: "Devices by state (reported by one relay).",
        feedbackPending: "Retired tokens waiting to be POSTed as feedback (reported by one relay).",
    ]

    /// Upper bounds of `pushrelay_push_duration_seconds`, in SECONDS.
    static let pushBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Upper bounds of `pushrelay_accepted_to_answered_seconds`, in SECONDS: up to an hour of back-off.
    static let answeredBuckets: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600]

    static func header(_ name: String, type: String) -> String {
        "# HELP \(name) \(help[name] ?? name)\n# TYPE \(name) \(type)\n"
    }

    /// The `app`, `platform` and `environment` labels of `pushrelay_provider_paused` and
    /// `pushrelay_provider_unreachable`: `environment` is the
    /// token's scope (``RelayCore/PushToken/scope``), `none` for a service with one.
    static func providerLabels(app: String, platform: Platform, _ scope: String?) -> [(String, String)] {
        [("app", app), ("platform", platform.rawValue), ("environment", scope ?? "none")]
    }

    /// The series every relay shows before anything happened.
    static func initialState(appIds: [String], dittoAppIds: [String]) -> RelayMetrics.State {
        typealias Labels = RelayMetrics.Labels
        var state = RelayMetrics.State()
        func zero(_ name: String, _ labels: [(String, String)]) {
            state.counters[name, default: [:]][Labels(pairs: labels)] = 0
        }
        for app in appIds {
            for event in MetricLabels.webhookEvents { zero(webhooks, [("app", app), ("event", event)]) }
            for platform in Platform.allCases {
                for outcome in MetricLabels.outcomes {
                    state.outcomes[.init(app: app, platform: platform, outcome: outcome, reason: "none")] = 0
                }
                for decision in MetricLabels.wakeDecisions {
                    zero(wakeDecisions, [("app", app), ("platform", platform.rawValue), ("decision", decision)])
                }
                for outcome in MetricLabels.badgeUpdateOutcomes {
                    zero(badgeUpdates, [("app", app), ("platform", platform.rawValue), ("outcome", outcome)])
                }
                state.answers[.init(app: app, platform: platform)] = .init()
                for scope in PushToken.scopes(of: platform) {
                    let labels = Labels(pairs: providerLabels(app: app, platform: platform, scope))
                    state.gauges[providerPaused, default: [:]][labels] = 0
                    state.gauges[providerUnreachable, default: [:]][labels] = 0
                }
            }
        }
        for app in dittoAppIds {
            zero(dittoRequeries, [("app", app)])
            for collection in DittoCollections.Kind.allCases.map({ "\($0)" }) + ["other"] {
                for outcome in DittoEventOutcome.allCases {
                    zero(dittoEvents, [("app", app), ("collection", collection), ("outcome", outcome.rawValue)])
                }
            }
        }
        for limit in MetricLabels.rateLimits.sorted() { zero(rateLimited, [("limit", limit)]) }
        for outcome in MetricLabels.feedbackOutcomes { zero(feedback, [("outcome", outcome)]) }
        state.gauges[storageUp] = [Labels(pairs: []): 0]
        state.gauges[outboxReporter] = [Labels(pairs: []): 0]
        return state
    }
}
