import Foundation

extension ChatMessage {
    /// The key that names the message whose notification a removal push takes away, in the APNs payload and
    /// in FCM `data`.
    public static let removeMessageIdKey = "dittoChatRemoveMessageId"

    /// The key of the identifier of the notification a removal push takes away
    /// (``notificationIdentifier(messageId:sha256Hex:)`` of the removed message: `dittochat-msg-<id>`, or its
    /// hashed form for an id APNs cannot carry), in the APNs payload and in FCM `data`: what the app removes.
    public static let removeNotificationIdKey = "dittoChatRemoveNotificationId"

    /// The removal of deleted message `removedId`'s notification: a notification of its own, kind
    /// ``NotificationKind/removal``, whose message id is the delete document's (`deleteId`), so a replayed
    /// delete makes no second removal.
    public static func removal(of removedId: String, roomId: String, senderId: String, deleteId: String) -> ChatMessage
    {
        ChatMessage(roomId: roomId, senderId: senderId, content: .removal(messageId: removedId), messageId: deleteId)
    }

    /// The id of the message whose notification this removes; nil for a chat message.
    public var removedMessageId: String? {
        if case .removal(let id) = content { return id }
        return nil
    }
}
