import RelayCore
import RelayStore

/// The closed value sets of ``RelayMetrics``' labels that text from outside the relay could otherwise fill:
/// a value outside its set is counted as `other`.
enum MetricLabels {
    /// The `method` label's values besides `other`: the methods of RFC 9110 §9 and PATCH (RFC 5789).
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// The `reason` label's values the relay gives itself, whatever the push service (`transport`,
    /// `Expired`, a cancellation's reason, …, and `none`); each transport adds its service's
    /// (``RelayCore/PushTransport/reasons``).
    static let relayReasons: Set<String> = {
        var reasons = Set(
            [
                DeliveryFailure.rejected, .configuration, .relayBug, .exhausted, .expired,
            ].map(\.rawValue)
        )
        reasons.formUnion(["none", "transport", "Expired", "NoTransport", PushResult.unreachableReason])
        reasons.formUnion(CancelReason.allCases.map(\.rawValue))
        return reasons
    }()

    /// The `outcome` of a claimed job left unsent because its lease ran out while it waited (``QueuedJob``).
    static let leaseEnded = "lease_ended"

    /// The `outcome` label of `pushrelay_notifications_total` (``DeliveryOutcome``'s metric names, and
    /// ``leaseEnded``).
    static let outcomes = ["sent", "retry", "failed", "retired", "unlinked", "cancelled", "paused", leaseEnded]

    /// The `outcome` label of `pushrelay_badge_updates_total` (a badge update is never cancelled).
    static let badgeUpdateOutcomes = ["sent", "retry", "failed", "retired", "unlinked", leaseEnded]

    /// The `event` label of `pushrelay_webhooks_total`.
    static let webhookEvents = ["did_send_message", "did_send_image_message"]

    /// The `decision` label of `pushrelay_wake_decisions_total`.
    static let wakeDecisions = ["wake", "over_budget"]

    /// The `outcome` label of `pushrelay_feedback_total`.
    static let feedbackOutcomes = ["delivered", "retry", "expired", "dropped"]

    /// The `limit` label of `pushrelay_rate_limited_total` besides `other`: the per-user limits, the daily
    /// budget and the credential-failure limit.
    static let rateLimits: Set<String> = [
        "writes", "reads", "webhooks", "pushes_per_recipient", "devices", "rooms", "room_levels", "daily_budget",
        "credential_failures",
    ]

    /// `limit` when it is one of ``rateLimits``, else `other`.
    static func rateLimit(_ limit: String) -> String { rateLimits.contains(limit) ? limit : "other" }

    /// `method` when it is one of ``methods``, else `other`.
    static func method(_ method: String) -> String { methods.contains(method) ? method : "other" }

    /// The statuses an `HTTP <status>` reason keeps as its label (an answer without a code of the service's:
    /// FCM's, a Web Push service's): those the push services answer. Any other is its class, `HTTP 5xx`: a
    /// Web Push endpoint is a URL a user gives, and its server may answer any status.
    static let reasonStatuses: Set<Int> = [400, 401, 403, 404, 408, 410, 413, 429, 500, 502, 503, 504]

    /// `reason` when it is one of ``reasons``; for `HTTP <status>`, itself when the status is one of
    /// ``reasonStatuses``, else its class (`HTTP 4xx`); else `other`.
    static func reason(_ reason: String, known reasons: Set<String>) -> String {
        if reasons.contains(reason) { return reason }
        if reason.hasPrefix("HTTP "), let status = Int(reason.dropFirst(5)), (100...599).contains(status),
            reason.count == 8
        {
            return reasonStatuses.contains(status) ? reason : "HTTP \(status / 100)xx"
        }
        return "other"
    }

    /// `status` as text when it is 100...599, else `other`.
    static func status(_ status: Int) -> String { (100...599).contains(status) ? "\(status)" : "other" }

    /// A Ditto collection kind's name (``RelayCore/DittoCollections/Kind``), else `other`.
    static func dittoCollection(_ name: String) -> String {
        DittoCollections.Kind.allCases.contains { "\($0)" == name } ? name : "other"
    }
}
