import Foundation
import RelayCore

extension DeliveryRecord {
    /// The statement ``init(row:notificationId:createdAt:)`` reads, without its condition and order: a
    /// notification's deliveries (`dl`) with their devices' platforms (`d`, NULL once a device is gone).
    package static let selectSQL = """
        SELECT dl.id, dl.token, dl.status, dl.attempts, dl.last_status, dl.last_reason, dl.updated_at, dl.sent_at,
            dl.next_attempt_at, d.platform
        FROM deliveries AS dl
        LEFT JOIN devices AS d ON d.app_id = dl.app_id AND d.user_id = dl.user_id AND d.token = dl.token
        """

    /// A record from a row of ``selectSQL``, of the notification `notificationId` created at `createdAt` (a
    /// delivery never updated reads as updated then).
    /// - Throws: ``StoreError`` `.invalidData` for a status that is none.
    package init(row: some StoredRow, notificationId: UUID, createdAt: Date) throws {
        let id = try row.int64(0)
        guard let status = DeliveryStatus(rawValue: row.string(2)) else {
            throw StoreError(code: .invalidData, message: "delivery \(id) has an unknown status")
        }
        self.init(
            deliveryId: id,
            token: row.string(1),
            status: status,
            platform: row.optionalString(9).flatMap(Platform.init(rawValue:)),
            pushId: PushIdentifier.forDelivery(id, of: notificationId),
            attempts: try row.int(3),
            lastStatus: try row.optionalInt(4),
            lastReason: row.optionalString(5),
            createdAt: createdAt,
            updatedAt: try row.optionalDate(6) ?? createdAt,
            sentAt: try row.optionalDate(7),
            nextAttemptAt: try row.optionalDate(8)
        )
    }
}
