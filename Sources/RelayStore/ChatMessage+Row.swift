import Foundation
import RelayCore

extension ChatMessage {
    /// The columns ``init(row:from:)`` reads, in its order, of a `notifications` row, each prefixed with
    /// `alias.` when one is given: the message's kind, ids and names, and its content
    /// (``StoredValues/columns(of:)``).
    package static func columns(of alias: String? = nil) -> String {
        StoredColumns.list(
            ["kind", "message_id", "room_id", "sender_id", "text", "image_url", "room_name", "sender_name"],
            of: alias
        )
    }

    /// The message of a row whose columns from `first` on are ``columns(of:)``.
    /// - Throws: ``StoreError`` `.invalidData` for an unknown kind.
    package init(row: some StoredRow, from first: Int = 0) throws {
        let kind = row.string(first)
        guard let kind = NotificationKind(rawValue: kind) else {
            throw StoreError(code: .invalidData, message: "stored notification kind '\(kind)' is unknown")
        }
        let text = row.optionalString(first + 4)
        let content: Content =
            switch kind {
            case .message: .text(text ?? "")
            case .imageMessage: .image(caption: text, imageURL: row.optionalString(first + 5))
            case .removal: .removal(messageId: text ?? "")
            }
        self.init(
            roomId: row.string(first + 2),
            senderId: row.string(first + 3),
            content: content,
            messageId: row.optionalString(first + 1),
            roomName: row.optionalString(first + 6),
            senderName: row.optionalString(first + 7)
        )
    }
}
