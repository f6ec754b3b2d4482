import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// ``RelayStore/DittoMirrorRows/deleteMessage(appId:messageId:notifiedSince:at:removal:)`` inside the
    /// batch's transaction. The removal's row is inserted … on conflict: a concurrent replay of the delete
    /// waits for it and then records nothing.
    func recordDeletion(
        appId: String,
        messageId: String,
        notifiedSince: Date,
        at: Date,
        removal: (ChatMessage) -> NewNotification
    ) throws -> Bool {
        let found = try db.query(
            """
            SELECT id, kind, room_id, sender_id, text, image_url, room_name, sender_name FROM notifications
            WHERE app_id = $1 AND message_id = $2 AND kind <> $3 AND created_at >= $4
            """,
            appId,
            messageId,
            NotificationKind.removal.rawValue,
            notifiedSince
        )
        guard found.count > 0 else { return false }
        let originalId = try StoredValues.uuid(found.string(0, 0))
        let original = try StoredValues.message(
            kind: found.string(0, 1),
            roomId: found.string(0, 2),
            senderId: found.string(0, 3),
            messageId: messageId,
            text: found.optionalString(0, 4),
            imageURL: found.optionalString(0, 5),
            roomName: found.optionalString(0, 6),
            senderName: found.optionalString(0, 7)
        )
        try db.query(
            """
            UPDATE deliveries SET status = 'cancelled', last_reason = $2, updated_at = $3, next_attempt_at = NULL,
                lease_until = NULL, lease_owner = NULL
            WHERE notification_id = $1 AND status = 'pending'
            """,
            originalId,
            CancelReason.deleted.rawValue,
            at
        )
        let sent = try db.query(
            "SELECT EXISTS (SELECT 1 FROM deliveries WHERE notification_id = $1 AND status = 'sent')",
            originalId
        )
        let n = removal(original)
        guard sent.bool(0, 0), try insertRow(of: n) else { return false }
        // The devices the message reached, in the order of their deliveries.
        let deliveries = try db.query(
            """
            INSERT INTO deliveries (notification_id, app_id, user_id, token, status, attempts, next_attempt_at)
            SELECT $1::uuid, app_id, user_id, token, 'pending', 0, $2::bigint FROM deliveries
            WHERE notification_id = $3 AND status = 'sent'
            ORDER BY id
            """,
            n.id,
            n.dueAt,
            originalId
        )
        if deliveries.changed > 0 { try notifyOutbox() }
        return deliveries.changed > 0
    }
}
