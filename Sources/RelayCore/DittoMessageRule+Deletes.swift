import Foundation

extension DittoMessageRule {
    /// A JS delete: a message document with `isDeleted: true` that names the deleted message in
    /// `archivedMessage`. Only such documents are deletes (a JS edit also archives its original).
    public struct Deletion: Sendable, Equatable {
        /// The deleted message's `_id` (`archivedMessage`).
        public let messageId: String
        /// The delete document's own `_id`: it names the removal, so a replayed delete removes nothing twice.
        public let deleteId: String
        public let roomId: String
        /// Who deleted it (`userId`).
        public let senderId: String
        /// The delete's `createdOn`, no later than its arrival.
        public let createdOn: Date

        /// This deletion of `messageId` instead (the first message of the JS edit chain the deleted one ends).
        public func naming(_ messageId: String) -> Deletion {
            Deletion(
                messageId: messageId,
                deleteId: deleteId,
                roomId: roomId,
                senderId: senderId,
                createdOn: createdOn
            )
        }

        /// The deleted message as its room's index keeps it: archived, so unread counts leave it out whether
        /// its own row came first or comes later.
        public var archivedIndexRow: IndexedMessage {
            IndexedMessage(roomId: roomId, key: messageId, senderId: senderId, createdAt: createdOn, isArchived: true)
        }
    }

    /// The deletion a message document makes, read on its own; nil for any document that is no delete
    /// (not `isDeleted`, no `archivedMessage`, or an id the relay does not take).
    /// - Parameter now: the relay's clock when the event arrived.
    public func deletion(_ document: DittoDocument, now: Date) -> Deletion? {
        let message = DittoChatMessage(document)
        guard message.isDeleted, let deleted = message.archivedMessage, ChatMessage.idProblem(deleted) == nil,
            ChatMessage.idProblem(document.id) == nil,
            let roomId = message.roomId, ChatMessage.idProblem(roomId) == nil,
            let senderId = message.userId, ChatMessage.idProblem(senderId) == nil
        else { return nil }
        return Deletion(
            messageId: deleted,
            deleteId: document.id,
            roomId: roomId,
            senderId: senderId,
            createdOn: min(message.createdOn ?? now, now)
        )
    }
}
