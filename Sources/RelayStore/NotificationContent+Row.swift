import Foundation
import RelayCore

extension NotificationContent {
    /// The columns ``init(row:from:)`` reads, in its order, of a `notifications` row, each prefixed with
    /// `alias.` when one is given: its id, its message (``RelayCore/ChatMessage/columns(of:)``), topic,
    /// expiration, creation time and message time (``messageTime(of:)``).
    package static func columns(of alias: String? = nil) -> String {
        [
            StoredColumns.list(["id"], of: alias),
            ChatMessage.columns(of: alias),
            StoredColumns.list(["topic", "expiration", "created_at"], of: alias),
            messageTime(of: alias),
        ]
        .joined(separator: ", ")
    }

    /// The number of columns ``columns(of:)`` names.
    package static let columnCount = 13

    /// The message's time (``NewNotification/messageAt``) of a `notifications` row, prefixed with `alias.`
    /// when one is given: its message's own time, else the notification's creation.
    package static func messageTime(of alias: String? = nil) -> String {
        "coalesce(\(StoredColumns.list(["message_at", "created_at"], of: alias)))"
    }

    /// The content of a row whose columns from `first` on are ``columns(of:)``.
    /// - Throws: ``StoreError`` `.invalidData` for an id or kind that is none.
    package convenience init(row: some StoredRow, from first: Int = 0) throws {
        self.init(
            id: try row.uuid(first),
            message: try ChatMessage(row: row, from: first + 1),
            sendAs: row.string(first + 9),
            expiration: try row.optionalInt(first + 10),
            createdAt: try row.date(first + 11),
            messageAt: try row.date(first + 12)
        )
    }
}
