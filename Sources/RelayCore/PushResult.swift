import Foundation

/// What became of one delivery attempt, in terms every push service shares: the answer of a
/// ``PushTransport``, from which the outbox records the delivery (and the device's fate).
public enum PushResult: Sendable, Equatable {
    /// The service took the push; `id` is its id for it (apns-id, FCM message name) when it gave one.
    case delivered(id: String?)
    /// The token is dead as of `invalidSince` (the service's own time when it gives one, such as APNs' 410
    /// timestamp, else the send's): the device is retired unless it registered again after that.
    case retire(status: Int, reason: String, invalidSince: Date)
    /// The token does not belong to identity `sendAs` (``NotificationContent/sendAs``; APNs'
    /// DeviceTokenNotForTopic, for example): nothing more is sent to it as that identity.
    case unlink(sendAs: String, status: Int, reason: String)

    /// The reason a delivery to a token unlinked from its identity fails with, unsent: the public reason name
    /// the API shows, APNs' own name for it (APNsCore's `APNsReason.deviceTokenNotForTopic`).
    public static let unlinkedReason = "DeviceTokenNotForTopic"
    /// Try again after `after`; `reason` is nil for an answer that gave none.
    case retry(after: Duration, status: Int?, reason: String?)
    /// Give up on this delivery; the device stays as it is.
    case fail(DeliveryFailure, status: Int?, reason: String)
    /// The service refused the relay's credentials for the app (APNs InvalidProviderToken, FCM
    /// THIRD_PARTY_AUTH_ERROR, …): nothing was wrong with the push, which waits without spending an attempt
    /// while the app's sends are paused (the outbox's `ProviderPauses`).
    case credentialsRefused(status: Int, reason: String)
    /// No answer from the push service (no connection, TLS, a timeout, a reset): nothing is known of the push
    /// or its token, and one such failure is the service's or the network's, not the device's. The push
    /// waits without spending an attempt while the outbox pauses the app's sends to that service and probes
    /// it (the outbox's `ProviderPauses`), so an outage outlasting every retry fails nothing.
    case unreachable(reason: String)
    /// The reason of ``unreachable(reason:)`` (the metrics', the API's `lastReason` and `/readyz`'s).
    public static let unreachableReason = "Unreachable"
    /// Not sent, and not an attempt: the transport holds the push back for `after` (a push service origin
    /// that is paused or has its most requests in flight); attempts stay as they were.
    case held(after: Duration, reason: String)

    /// Whether the service answered (a status came back), rather than no connection, a timeout, or a
    /// refusal by the relay itself.
    public var answered: Bool {
        switch self {
        case .delivered, .retire, .unlink, .credentialsRefused: true
        case .retry(_, let status, _), .fail(_, let status, _): status != nil
        case .held, .unreachable: false
        }
    }

    /// The service's reason (or the relay's), for logs and metrics; nil when delivered or none was given.
    public var reason: String? {
        switch self {
        case .delivered: nil
        case .retire(_, let reason, _), .unlink(_, _, let reason), .fail(_, _, let reason): reason
        case .credentialsRefused(_, let reason), .held(_, let reason), .unreachable(let reason): reason
        case .retry(_, _, let reason): reason
        }
    }
}
