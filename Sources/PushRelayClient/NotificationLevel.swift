/// Which of a room's messages notify the user: every message, only those that mention the user (in a
/// Ditto DM room, every message), or none. A room without a level of its own follows the user's default,
/// which is `all` until set.
public enum NotificationLevel: String, Codable, Sendable, CaseIterable {
    case all, mentions, none
}
