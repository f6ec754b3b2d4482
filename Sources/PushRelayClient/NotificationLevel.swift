/// Which of a room's messages notify the user: every message, only those that mention the user (in a
/// Ditto DM room, every message), or none. A room without a level of its own follows the user's default,
/// which is `all` until set.
public enum NotificationLevel: String, Codable, Sendable, CaseIterable {
    case all, mentions, none
}

/// A user's notification level for one room: ``own`` is the room's own (nil: the user's default applies),
/// ``effective`` the level its messages are decided by.
public struct RoomNotificationLevel: Equatable, Sendable {
    public var own: NotificationLevel?
    public var effective: NotificationLevel

    public init(own: NotificationLevel?, effective: NotificationLevel) {
        self.own = own
        self.effective = effective
    }
}
