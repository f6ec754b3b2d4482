import RelayCore

/// The statement that gives an edited message's notification its new text, written once for both engines,
/// each with its own spelling of parameter `n` (1 is the first).
package enum MessageEditSQL {
    /// Parameters: 1 app id, 2 the message id, 3 the earliest creation time taken, 4 the room id, 5 the
    /// sender id, 6 the new text. Only the message's own notification (a message or an image message, not a
    /// removal), made at or after parameter 3, and from the edit's room and sender: another sender's
    /// "edit" of a message changes nothing. Its deliveries are rendered from this row when each is sent, so
    /// those not yet sent show the new text; those sent keep what they showed.
    package static func update(parameter p: (Int) -> String) -> String {
        """
        UPDATE notifications SET text = \(p(6))
        WHERE app_id = \(p(1)) AND message_id = \(p(2))
            AND kind IN ('\(NotificationKind.message.rawValue)', '\(NotificationKind.imageMessage.rawValue)')
            AND created_at >= \(p(3)) AND room_id = \(p(4)) AND sender_id = \(p(5))
        """
    }
}
