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
    /// this token (a token the user has live does not count again).
    /// - Throws: ``UserLimitExceeded`` `.devices`.
    package func checkDevices(otherLiveDevices: Int) throws(UserLimitExceeded) {
        guard otherLiveDevices < devices else {
            throw UserLimitExceeded(limit: .devices, current: otherLiveDevices, maximum: devices)
        }
    }

    /// Refuses joins that would make the user, a member of `current` rooms, a member of `joining` more.
    /// - Throws: ``UserLimitExceeded`` `.rooms`.
    package func checkRooms(current: Int, joining: Int) throws(UserLimitExceeded) {
        guard joining == 0 || current + joining <= rooms else {
            throw UserLimitExceeded(limit: .rooms, current: current, maximum: rooms)
        }
    }
}

/// A registration or join refused by ``UserLimits``: nothing was written.
public struct UserLimitExceeded: Error, Sendable, Equatable {
    public enum Limit: String, Sendable {
        case devices
        case rooms
    }

    public var limit: Limit
    /// What the user has: live devices, or rooms.
    public var current: Int
    public var maximum: Int

    public init(limit: Limit, current: Int, maximum: Int) {
        self.limit = limit
        self.current = current
        self.maximum = maximum
    }
}
