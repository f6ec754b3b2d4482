import Foundation

/// The result of one attempt as ``Store/complete(_:at:)`` records it (the outbox makes it from the
/// transport's ``RelayCore/PushResult``). Every outcome but ``deferred(at:status:reason:)`` counts one
/// attempt; every outcome releases the lease.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The push service accepted it: status `sent`, `sentAt` = the completion time, last status 200.
    case sent
    /// Try again at `at`: status stays `pending`, `nextAttemptAt` = `at`.
    case retry(at: Date, status: Int?, reason: String?)
    /// Not an attempt of the push: its app's sends are paused because the service refused the relay's
    /// credentials (``RelayCore/PushResult/credentialsRefused(status:reason:)``). Status stays `pending`,
    /// `nextAttemptAt` = `at`, attempts unchanged; `status` and `reason` are the refusal that paused the app
    /// (nil for a delivery held back without being sent).
    case deferred(at: Date, status: Int?, reason: String?)
    /// Give up: status `failed`.
    case failed(status: Int?, reason: String?)
    /// The token is invalid: the delivery becomes `retired`, and so does the DEVICE (state, retiredAt =
    /// completion time, retiredReason = reason, ``Device/invalidSince`` = `invalidSince`) unless it
    /// registered again after `invalidSince`: a token registered again after its service knew it invalid is
    /// valid (for example Apple, "Handling notification responses from APNs", on the 410 timestamp). The
    /// device's other pending deliveries end `retired` when claimed. This is the only place that rule is
    /// applied: it is checked in the transaction that retires the device.
    case retired(status: Int, reason: String, invalidSince: Date)
    /// The push service refused this token for identity `sendAs` (``RelayCore/NotificationContent/sendAs``;
    /// APNs' DeviceTokenNotForTopic, for example): the delivery `failed`, the token is unlinked from the
    /// identity (``RelayCore/PushToken/unlinked``; no more deliveries sent as it are created); the device's
    /// other pending deliveries sent as it end `failed` when claimed.
    case unlink(sendAs: String, status: Int, reason: String)
}

extension DeliveryOutcome {
    /// Whether the delivery was held back by its app's pause without being sent (a deferral with neither a
    /// status nor a reason): it keeps its last answer's status and reason, such as the refusal that paused
    /// its app. A hold by its transport (Web Push) carries a reason of its own and records it.
    package var isHeldUnsent: Bool {
        if case .deferred(_, nil, nil) = self { return true }
        return false
    }
}
