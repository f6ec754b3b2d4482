import RelayCore

/// Who a notification goes to: users (explicit, or the room's unmuted members), minus the sender.
///
/// Each live device token of a selected user gets one delivery, however often the user is listed.
public struct RecipientSelection: Sendable, Equatable {
    public var roomId: String
    /// Explicit recipients (muting is ignored for them); nil = the room's members with `muted == false`.
    public var userIds: [String]?
    /// The sender: none of this user's devices get the notification.
    public var excludeUserId: String?
    /// The sender's own device: it never gets the notification, whoever it is registered to.
    public var excludeToken: PushToken?

    public init(
        roomId: String,
        userIds: [String]? = nil,
        excludeUserId: String? = nil,
        excludeToken: PushToken? = nil
    ) {
        self.roomId = roomId
        self.userIds = userIds
        self.excludeUserId = excludeUserId
        self.excludeToken = excludeToken
    }
}
