import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    /// ``DittoMirrorRows/deleteMessage(appId:deletion:notifiedSince:at:removal:)`` inside the
    /// batch's transaction.
    func recordDeletion(
        appId: String,
        deletion: DittoMessageRule.Deletion,
        notifiedSince: Date,
        at: Date,
        removal: (ChatMessage) -> NewNotification
    ) throws -> Bool? {
        let found = try db.withStatement(
            """
            SELECT \(ChatMessage.columns()), first_delivery_id, last_delivery_id, created_at >= ?4
            FROM notifications
            WHERE app_id = ?1 AND message_id = ?2 AND kind <> ?3
            """
        ) { row -> (message: ChatMessage, deliveries: DeliveryRun, isRecent: Bool)? in
            try row.bind(1, appId)
            try row.bind(2, deletion.messageId)
            try row.bind(3, NotificationKind.removal.rawValue)
            try row.bind(4, notifiedSince)
            guard try row.step() else { return nil }
            return (try ChatMessage(row: row), DeliveryRun(row, first: 8), row.bool(10))
        }
        guard let original = found else { return false }
        guard original.message.roomId.isSameId(deletion.roomId), original.message.senderId.isSameId(deletion.senderId)
        else { return nil }
        guard original.isRecent else { return false }
        try db.withStatement(
            """
            UPDATE deliveries SET status = 'cancelled', last_reason = ?3, updated_at = ?4, next_attempt_at = NULL
            WHERE id BETWEEN ?1 AND ?2 AND status = 'pending'
            """
        ) {
            try original.deliveries.bind(to: $0, at: 1)
            try $0.bind(3, CancelReason.deleted.rawValue)
            try $0.bind(4, at)
            try $0.run()
        }
        // A sent delivery whose removal is recorded keeps `sent` with reason `deleted`.
        let unremoved = "id BETWEEN ?1 AND ?2 AND status = 'sent' AND last_reason IS NULL"
        // Only devices a removal reaches get one (``RemovalSQL``).
        let reached = "\(unremoved) AND \(RemovalSQL.reaches("deliveries"))"
        let anySent = try db.withStatement("SELECT EXISTS (SELECT 1 FROM deliveries WHERE \(reached))") {
            try original.deliveries.bind(to: $0, at: 1)
            return try $0.step() && $0.int(0) != 0
        }
        let n = removal(original.message)
        guard anySent, let removalId = n.messageId, try notificationId(of: removalId, appId: appId) == nil else {
            return false
        }
        try insertRow(of: n)
        // The devices the message reached, in the order of their deliveries.
        try db.withStatement(
            """
            INSERT INTO deliveries (app_id, user_id, token, status, attempts, next_attempt_at)
            SELECT app_id, user_id, token, 'pending', 0, ?3 FROM deliveries
            WHERE \(reached)
            ORDER BY id
            """
        ) {
            try original.deliveries.bind(to: $0, at: 1)
            try $0.bind(3, n.dueAt)
            try $0.run()
        }
        let devices = db.changes
        try setDeliveryRun(of: n.id.lowercasedString, inserted: devices)
        try db.withStatement("UPDATE deliveries SET last_reason = ?3 WHERE \(unremoved)") {
            try original.deliveries.bind(to: $0, at: 1)
            try $0.bind(3, CancelReason.deleted.rawValue)
            try $0.run()
        }
        return devices > 0
    }

    /// The id of the notification `messageId` names in `appId`, inside a transaction; nil when none.
    private func notificationId(of messageId: String, appId: String) throws -> String? {
        try db.withStatement("SELECT id FROM notifications WHERE app_id = ?1 AND message_id = ?2") {
            try $0.bind(1, appId)
            try $0.bind(2, messageId)
            return try $0.step() ? $0.string(0) : nil
        }
    }
}
