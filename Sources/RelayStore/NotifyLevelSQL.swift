/// A user's notification level for a room as SQL, the same for both engines: its own level for the room
/// (`room_levels`), else its default (`user_settings`), else `all`.
package enum NotifyLevelSQL {
    /// The level expression; `app`, `room` and `user` are SQL expressions (a parameter, a column).
    package static func level(app: String, room: String, user: String) -> String {
        """
        coalesce(
            (SELECT l.level FROM room_levels AS l WHERE l.app_id = \(app) AND l.room_id = \(room) AND l.user_id = \(user)),
            (SELECT s.notify FROM user_settings AS s WHERE s.app_id = \(app) AND s.user_id = \(user)),
            'all')
        """
    }
}
