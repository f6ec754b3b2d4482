import RelayCore

/// A change of a user's own level for one room (``Store/setRoomLevel(appId:roomId:userId:_:scope:)``).
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

/// Whose level for a room ``Store/setRoomLevel(appId:roomId:userId:_:scope:)`` writes.
public enum RoomLevelScope: Sendable, Equatable {
    /// Only a member's (the relay keeps the room's members).
    case members
    /// Any user's, member or not (an app whose members Ditto holds), with a level of its own for at most
    /// `atMost` rooms when given (``RelayCore/Configuration/Limits/roomsPerUser``: the rows a user's calls
    /// add are bounded as a member's rooms are); nil for the backend, which is not limited.
    case anyRoom(atMost: Int?)

    /// Refuses a level of its own for this room when the user has one for `elsewhere` other rooms and the
    /// scope bounds them, unless the room has one already (`alreadySet`: changing it adds nothing, however
    /// many the user has: the backend's levels are not limited); dropping a level, or a scope without a
    /// bound, is never refused.
    /// - Throws: ``UserLimitExceeded`` `.roomLevels`.
    package func check(_ change: RoomLevelChange, elsewhere: Int, alreadySet: Bool) throws(UserLimitExceeded) {
        guard case .anyRoom(let maximum?) = self, change.level != nil, !alreadySet, elsewhere >= maximum else {
            return
        }
        throw UserLimitExceeded(limit: .roomLevels, current: elsewhere, maximum: maximum)
    }

    /// Whether the write takes the user's lock and counts its levels first (``check(_:elsewhere:alreadySet:)``).
    package var isBounded: Bool {
        if case .anyRoom(_?) = self { true } else { false }
    }
}
