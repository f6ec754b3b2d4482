/// What a webhook announced. With the message id it identifies a notification for de-duplication.
public enum NotificationKind: String, Sendable, Codable, CaseIterable, Hashable {
    case message = "message"
    case imageMessage = "image_message"
    /// The removal of a deleted message's notification from the devices it was sent to
    /// (``ChatMessage/Content/removal(messageId:)``); made by the relay, never by a webhook.
    case removal = "removal"
}
