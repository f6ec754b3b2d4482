import RelayCore

/// Who a notification goes to: users (explicit, or the room's members), minus the sender, each as its level
/// for the room admits the message.
///
/// A user's level (``RelayCore/NotifyLevel``) is its own for ``roomId``, else its default, else `all`: `all`
/// admits every message, `mentions` those that name it in ``mentionedUserIds`` or any message of a direct
/// room (``isDirect``), `none` nothing. Each live device token of an admitted user gets one delivery, however
/// often the user is listed.
public struct RecipientSelection: Sendable, Equatable {
    public var roomId: String
    /// Explicit recipients; nil = the room's members.
    public var userIds: [String]?
    /// Whether explicit recipients get it whatever their level: the backend's do, a user's do not (those the
    /// level leaves out are left out silently, so the sender does not learn of it). The room's members
    /// (``userIds`` nil) always go by their levels.
    public var overridesLevels: Bool
    /// The users the message mentions: a level of `mentions` admits them.
    public var mentionedUserIds: [String]
    /// Whether the room is a direct-message room, where every message counts as a mention.
    public var isDirect: Bool
    /// The sender: none of this user's devices get the notification.
    public var excludeUserId: String?
    /// The sender's own device: it never gets the notification, whoever it is registered to.
    public var excludeToken: PushToken?

    public init(
        roomId: String,
        userIds: [String]? = nil,
        overridesLevels: Bool = true,
        mentionedUserIds: [String] = [],
        isDirect: Bool = false,
        excludeUserId: String? = nil,
        excludeToken: PushToken? = nil
    ) {
        self.roomId = roomId
        self.userIds = userIds
        self.overridesLevels = overridesLevels
        self.mentionedUserIds = mentionedUserIds
        self.isDirect = isDirect
        self.excludeUserId = excludeUserId
        self.excludeToken = excludeToken
    }

    /// The room whose levels apply: nil when explicit recipients override them.
    package var levelRoomId: String? { userIds != nil && overridesLevels ? nil : roomId }
}
