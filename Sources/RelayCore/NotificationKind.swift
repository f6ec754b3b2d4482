/// What a webhook announced. With the message id it identifies a notification for de-duplication.
public enum NotificationKind: String, Sendable, Codable, CaseIterable, Hashable {
    case message = "message"
    case imageMessage = "image_message"
}
