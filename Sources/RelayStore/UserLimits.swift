/// The counts a user's registrations and joins may not pass (``RelayCore/Configuration/Limits``
/// `devicesPerUser`, `roomsPerUser`), checked in the write's own transaction under a lock on the (app, user):
/// concurrent writes of one user are counted one after the other, on every relay sharing the store.
public struct UserLimits: Sendable, Equatable {
    /// Live devices a user may have.
    public var devices: Int
    /// Rooms a user may be a member of.
    public var rooms: Int

    public init(devices: Int, rooms: Int) {
        self.devices = devices
        self.rooms = rooms
    }

    /// Refuses a registration of a device when the user already has `otherLiveDevices` live devices besides
    /// this token, unless the token is one of the user's live devices already (`alreadyLive`): registering it
    /// again adds nothing, however many devices the user has (the backend's registrations are not limited,
    /// and an operator may lower the limit).
    /// - Throws: ``UserLimitExceeded`` `.devices`.
    package func checkDevices(otherLiveDevices: Int, alreadyLive: Bool) throws(UserLimitExceeded) {
        guard alreadyLive || otherLiveDevices < devices else {
            throw UserLimitExceeded(limit: .devices, current: otherLiveDevices, maximum: devices)
        }
    }

    /// Refuses joins that would make the user, a member of `current` rooms, a member of `joining` more.
    /// - Throws: ``UserLimitExceeded`` `.rooms`.
    package func checkRooms(current: Int, joining: Int) throws(UserLimitExceeded) {
        guard joining == 0 || current + joining <= rooms else {
            throw UserLimitExceeded(limit: .rooms, current: current, maximum: rooms, adding: joining)
        }
    }
}

/// The statements both engines run for ``UserLimits``.
package enum UserLimitsSQL {
    /// Parameter 2's live devices in app 1 besides token 3, and whether token 3 is one of them (0 or 1), as
    /// ``UserLimits/checkDevices(otherLiveDevices:alreadyLive:)`` takes them. `parameter` writes the engine's
    /// placeholder of a parameter number.
    package static func liveDevicesSQL(parameter p: (Int) -> String) -> String {
        """
        SELECT count(*) FILTER (WHERE token <> \(p(3))), count(*) FILTER (WHERE token = \(p(3))) FROM devices
        WHERE app_id = \(p(1)) AND user_id = \(p(2)) AND state = 'live'
        """
    }

    /// The rooms besides room 3 for which user 2 of app 1 has a level of its own, and whether room 3 has
    /// one (0 or 1), as ``RoomLevelScope/check(_:elsewhere:alreadySet:)`` takes them.
    package static func levelsElsewhereSQL(parameter p: (Int) -> String) -> String {
        """
        SELECT count(*) FILTER (WHERE room_id <> \(p(3))), count(*) FILTER (WHERE room_id = \(p(3)))
        FROM room_levels WHERE app_id = \(p(1)) AND user_id = \(p(2))
        """
    }
}

/// A registration, join or room level refused by ``UserLimits`` or ``RoomLevelScope``: nothing was written.
public struct UserLimitExceeded: Error, Sendable, Equatable {
    public enum Limit: String, Sendable {
        case devices
        case rooms
        /// Rooms a user has a level of its own for, member or not (``RoomLevelScope/anyRoom(atMost:)``).
        case roomLevels = "room_levels"
    }

    public var limit: Limit
    /// What the user has: live devices, rooms, or rooms with a level of its own.
    public var current: Int
    public var maximum: Int
    /// What the write would add: 1 device, the rooms it would join, or 1 room's level.
    public var adding: Int

    public init(limit: Limit, current: Int, maximum: Int, adding: Int = 1) {
        self.limit = limit
        self.current = current
        self.maximum = maximum
        self.adding = adding
    }
}
