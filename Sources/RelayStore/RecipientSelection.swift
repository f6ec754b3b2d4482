import RelayCore

/// Who a notification goes to: users (explicit, or the room's unmuted members), minus the sender.
///
/// Each live device token of a selected user gets one delivery, however often the user is listed.
public struct RecipientSelection: Sendable, Equatable {
    public var roomId: String
    /// Explicit recipients; nil = the room's members with `muted == false`.
    public var userIds: [String]?
    /// Whether explicit recipients who muted the room get it: the backend's may reach them, a user's may not
    /// (they are left out silently, so the sender does not learn of the mute).
    public var reachesMuted: Bool
    /// The sender: none of this user's devices get the notification.
    public var excludeUserId: String?
    /// The sender's own device: it never gets the notification, whoever it is registered to.
    public var excludeToken: PushToken?

    public init(
        roomId: String,
        userIds: [String]? = nil,
        reachesMuted: Bool = true,
        excludeUserId: String? = nil,
        excludeToken: PushToken? = nil
    ) {
        self.roomId = roomId
        self.userIds = userIds
        self.reachesMuted = reachesMuted
        self.excludeUserId = excludeUserId
        self.excludeToken = excludeToken
    }
}
