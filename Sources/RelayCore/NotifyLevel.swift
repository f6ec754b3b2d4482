/// Which of a room's messages notify a user (Mattermost's channel levels): every message, only those that
/// mention the user (in a direct-message room every message counts as a mention), or none.
///
/// A user's level for a room is its own for that room when set, else the user's default, else ``all``.
public enum NotifyLevel: String, Sendable, Codable, ListedCases {
    case all, mentions, none

    /// The level a user's messages in a room are decided by: `own` (the room's), else `userDefault`, else
    /// ``all``. (The fan-out applies the same rule in SQL: `NotifyLevelSQL`.)
    public static func effective(own: NotifyLevel?, userDefault: NotifyLevel?) -> NotifyLevel {
        own ?? userDefault ?? .all
    }
}
