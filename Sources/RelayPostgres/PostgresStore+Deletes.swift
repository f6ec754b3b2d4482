import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// ``RelayStore/DittoMirrorRows/deleteMessage(appId:deletion:notifiedSince:at:removal:)``
    /// inside the batch's transaction. The original notification's row is locked first, so concurrent deletes
    /// of one message take turns and the second finds its sent deliveries removed; the removal's row is
    /// inserted … on conflict, so a concurrent replay of the same delete records nothing.
    func recordDeletion(
        appId: String,
        deletion: DittoMessageRule.Deletion,
        notifiedSince: Date,
        at: Date,
        removal: (ChatMessage) -> NewNotification
    ) throws -> Bool? {
        let found = try db.query(
            """
            SELECT id, \(ChatMessage.columns()), created_at >= $4
            FROM notifications
            WHERE app_id = $1 AND message_id = $2 AND kind <> $3
            FOR UPDATE
            """,
            appId,
            deletion.messageId,
            NotificationKind.removal.rawValue,
            notifiedSince
        )
        guard found.count > 0 else { return false }
        let row = found[0]
        let originalId = try row.uuid(0)
        let original = try ChatMessage(row: row, from: 1)
        guard original.roomId.isSameId(deletion.roomId), original.senderId.isSameId(deletion.senderId) else {
            return nil
        }
        guard try row.bool(9) else { return false }
        try db.query(
            """
            UPDATE deliveries SET status = 'cancelled', last_reason = $2, updated_at = $3, next_attempt_at = NULL
            WHERE \(NotificationDeliveriesSQL.of(id: "$1", delivery: "deliveries"))
                AND \(NotificationDeliveriesSQL.isPending("deliveries"))
            """,
            originalId,
            CancelReason.deleted.rawValue,
            at
        )
        // A sent delivery whose removal is recorded keeps `sent` with reason `deleted`.
        let sent = try db.query(
            """
            SELECT EXISTS (SELECT 1 FROM deliveries
                WHERE \(NotificationDeliveriesSQL.of(id: "$1", delivery: "deliveries")) AND status = 'sent'
                AND last_reason IS NULL AND \(RemovalSQL.reaches("deliveries")))
            """,
            originalId
        )
        let n = removal(original)
        guard try sent[0].bool(0), try insertRow(of: n) else { return false }
        // The devices the message reached that a removal reaches (``RelayStore/RemovalSQL``), in the order of
        // their deliveries; each sent delivery is marked removed.
        let deliveries = try db.query(
            NotificationDeliveriesSQL.counted(
                """
                INSERT INTO deliveries (notification_id, app_id, user_id, token, status, attempts, next_attempt_at)
                SELECT $1::uuid, app_id, user_id, token, 'pending', 0, $2::bigint FROM removed
                WHERE \(RemovalSQL.reaches("removed"))
                ORDER BY id
                """,
                with: """
                    removed AS (
                        UPDATE deliveries SET last_reason = $4
                        WHERE \(NotificationDeliveriesSQL.of(id: "$3", delivery: "deliveries")) AND status = 'sent'
                            AND last_reason IS NULL
                        RETURNING id, app_id, user_id, token)
                    """
            ),
            n.id,
            n.dueAt,
            originalId,
            CancelReason.deleted.rawValue
        )
        return try inserted(deliveries, of: n.id) > 0
    }
}
