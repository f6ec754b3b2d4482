import Foundation

/// What ``Store/createNotification(_:recipients:)`` did.
public enum CreateOutcome: Sendable, Equatable {
    /// The notification was recorded with `devices` pending deliveries (0 when nobody matched).
    case created(notificationId: UUID, devices: Int)
    /// A notification with the same (appId, kind, messageId) exists: nothing was inserted; these are the
    /// first notification's id and its number of deliveries.
    case duplicate(notificationId: UUID, devices: Int)

    /// The id of the notification, new or first.
    public var notificationId: UUID {
        switch self {
        case .created(let id, _), .duplicate(let id, _): id
        }
    }

    /// The number of deliveries of that notification.
    public var devices: Int {
        switch self {
        case .created(_, let n), .duplicate(_, let n): n
        }
    }
}
