import Foundation

/// One message of a room as the unread counts see it: a row of the relay's per-room message index.
///
/// Unread for a user in a room is the number of such messages from others, not archived, written after its
/// read position (the DittoChat SDK's rule over message documents).
public struct IndexedMessage: Sendable, Equatable {
    public var roomId: String
    /// Names the message in its room: a Ditto message's `_id`, or a webhook notification's id.
    public var key: String
    public var senderId: String
    /// When it was written, never later than its arrival at the relay.
    public var createdAt: Date
    /// Archived messages (`isArchived`, e.g. the original of a JS edit) do not count.
    public var isArchived: Bool
    /// The key of the message this one replaces (a JS edit's `archivedMessage`): the index gives it the
    /// original's time when it holds the original from the same sender, so an edit keeps the count.
    public var replacedKey: String?

    public init(
        roomId: String,
        key: String,
        senderId: String,
        createdAt: Date,
        isArchived: Bool,
        replacedKey: String? = nil
    ) {
        self.roomId = roomId
        self.key = key
        self.senderId = senderId
        self.createdAt = createdAt
        self.isArchived = isArchived
        self.replacedKey = replacedKey
    }

    /// The index row of a Ditto message document that arrived at `arrival`; nil for a document that is no
    /// message: a delete (`isDeleted`), or one without a usable `_id`, `roomId`, `userId` or `createdOn`.
    /// A JS edit (`isEdited`, naming the original in `archivedMessage`) is indexed as the message it
    /// replaces: the original is archived, and the edit takes the original's time (``replacedKey``), so
    /// the count stays. `createdOn` is clamped to `arrival`.
    public init?(dittoDocument document: DittoDocument, arrival: Date) {
        let message = DittoChatMessage(document)
        guard !message.isDeleted,
            ChatMessage.idProblem(document.id) == nil,
            let roomId = message.roomId, ChatMessage.idProblem(roomId) == nil,
            let senderId = message.userId, ChatMessage.idProblem(senderId) == nil,
            let written = message.createdOn
        else { return nil }
        self.init(
            roomId: roomId,
            key: document.id,
            senderId: senderId,
            createdAt: min(written, arrival),
            isArchived: message.isArchived,
            replacedKey: message.archivedMessage.flatMap { ChatMessage.idProblem($0) == nil ? $0 : nil }
        )
    }
}
