/// What an app may know of a message beyond its room and text, for
/// ``PushRelayClient/didSendMessage(roomId:roomName:senderName:text:details:)`` and the image call.
public struct MessageDetails: Sendable, Equatable {
    /// The chat SDK's message id (the message document's `_id`): the notification then replaces the SDK's
    /// own banner for it (`apns-collapse-id` `dittochat-msg-<id>`), and the same message sent again notifies
    /// once.
    public var messageId: String?
    /// The users the message mentions: a member whose level for the room is `mentions` gets it when named.
    public var mentions: [String]
    /// The members to notify instead of every member of the room; nil for the room.
    public var recipients: [String]?

    public init(messageId: String? = nil, mentions: [String] = [], recipients: [String]? = nil) {
        self.messageId = messageId
        self.mentions = mentions
        self.recipients = recipients
    }
}
