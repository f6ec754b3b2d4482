import Foundation
import RelayCore

/// What ``Store/createNotification(_:recipients:)`` did.
public enum CreateOutcome: Sendable, Equatable {
    /// The notification was recorded with `devices` pending deliveries (0 when nobody matched).
    case created(notificationId: UUID, devices: Int)
    /// The same webhook was accepted before (a notification with the same (appId, messageId) of the same
    /// kind, room and sender, or the same ``IdempotencyKey`` with the same fingerprint): nothing was inserted;
    /// these are the first notification's id and its number of deliveries.
    case duplicate(notificationId: UUID, devices: Int)
    /// A notification with the same (appId, messageId) exists of another kind, room or sender: nothing was
    /// inserted; these are the first one's id, room and sender.
    case conflict(notificationId: UUID, roomId: String, senderId: String)
    /// The ``IdempotencyKey`` was used within ``IdempotencyKey/retention`` for another request (another
    /// fingerprint): nothing was inserted; this is the notification the key was first used for.
    case keyReused(notificationId: UUID)
    /// Recording it would pass the sender's ``DailyBudget`` (``NewNotification/budget``): nothing was
    /// inserted or counted (no notification has the id it was to have); the UTC day starts again in
    /// `retryAfterSeconds`.
    case overBudget(notificationId: UUID, retryAfterSeconds: Int)

    /// The id of the notification, new or first.
    public var notificationId: UUID {
        switch self {
        case .created(let id, _), .duplicate(let id, _), .conflict(let id, _, _), .keyReused(let id),
            .overBudget(let id, _):
            id
        }
    }

    /// The number of deliveries of that notification (0 for a conflict, a reused key or a refusal).
    public var devices: Int {
        switch self {
        case .created(_, let n), .duplicate(_, let n): n
        case .conflict, .keyReused, .overBudget: 0
        }
    }
}
