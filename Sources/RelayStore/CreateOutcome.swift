import Foundation

/// What ``Store/createNotification(_:recipients:)`` did.
public enum CreateOutcome: Sendable, Equatable {
    /// The notification was recorded with `devices` pending deliveries (0 when nobody matched).
    case created(notificationId: UUID, devices: Int)
    /// A notification with the same (appId, kind, messageId) exists: nothing was inserted; these are the
    /// first notification's id and its number of deliveries.
    case duplicate(notificationId: UUID, devices: Int)
    /// A notification with the same (appId, kind, messageId) exists for another room or sender: nothing was
    /// inserted; these are the first one's id, room and sender.
    case conflict(notificationId: UUID, roomId: String, senderId: String)

    /// The id of the notification, new or first.
    public var notificationId: UUID {
        switch self {
        case .created(let id, _), .duplicate(let id, _), .conflict(let id, _, _): id
        }
    }

    /// The number of deliveries of that notification (0 for a conflict).
    public var devices: Int {
        switch self {
        case .created(_, let n), .duplicate(_, let n): n
        case .conflict: 0
        }
    }
}
