import RelayCore

/// A change of a user's own level for one room (``Store/setRoomLevel(appId:roomId:userId:_:membersOnly:)``).
public enum RoomLevelChange: Sendable, Equatable, Hashable {
    /// The room gets this level of its own for the user.
    case set(NotifyLevel)
    /// The room's own level is dropped: the user's default applies again.
    case userDefault
}

extension RoomLevelChange {
    /// The room's own level after the change; nil when the user's default applies.
    public var level: NotifyLevel? {
        switch self {
        case .set(let level): level
        case .userDefault: nil
        }
    }
}
