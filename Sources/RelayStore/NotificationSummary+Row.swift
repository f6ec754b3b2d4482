import Foundation
import RelayCore

extension NotificationSummary {
    /// The columns ``init(row:)`` reads, in its order, of a `notifications` row.
    package static let columns = "id, kind, room_id, sender_id, message_id, created_at"

    /// A summary, without counts, from a row that starts with ``columns``.
    /// - Throws: ``StoreError`` `.invalidData` for an id or kind that is none.
    package init(row: some StoredRow) throws {
        let id = try row.uuid(0)
        guard let kind = NotificationKind(rawValue: row.string(1)) else {
            throw StoreError(code: .invalidData, message: "notification \(id.lowercasedString) has an unknown kind")
        }
        self.init(
            id: id,
            kind: kind,
            roomId: row.string(2),
            senderId: row.string(3),
            messageId: row.optionalString(4),
            createdAt: try row.date(5),
            counts: DeliveryCounts()
        )
    }
}
