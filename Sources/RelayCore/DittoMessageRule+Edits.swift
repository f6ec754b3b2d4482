import Foundation

extension DittoMessageRule {
    /// A JS edit: a message document with `isEdited: true` (not `isDeleted`) that names the message it
    /// replaces in `archivedMessage`, with the message's new text. A push of that message still waiting (the
    /// app's grace window, a retry) shows the new text, as the room does.
    public struct Edit: Sendable, Equatable {
        /// The edited message's `_id` (`archivedMessage`).
        public let messageId: String
        public let roomId: String
        /// Who edited it (`userId`): only the message's sender edits it.
        public let senderId: String
        /// The new text (an image message's caption), as a push keeps it (``ChatMessage/kept``).
        public let text: String

        /// This edit of `messageId` instead (the first message of the JS edit chain the edited one is in).
        public func naming(_ messageId: String) -> Edit {
            Edit(messageId: messageId, roomId: roomId, senderId: senderId, text: text)
        }
    }

    /// The edit a message document makes, read on its own; nil for any document that is no edit (not
    /// `isEdited`, `isDeleted`, no `archivedMessage`, an id the relay does not take) or whose new text a push
    /// cannot show (blank, missing or not a string): the edited message may be a text message, whose push
    /// needs a text, so an edit that only takes an image's caption away leaves the caption.
    public func edit(_ document: DittoDocument) -> Edit? {
        let message = DittoChatMessage(document)
        guard message.isEdited, !message.isDeleted, let edited = message.archivedMessage,
            ChatMessage.idProblem(edited) == nil,
            let roomId = message.roomId, ChatMessage.idProblem(roomId) == nil,
            let senderId = message.userId, ChatMessage.idProblem(senderId) == nil,
            let text = message.text.nonBlank
        else { return nil }
        let kept = ChatMessage(roomId: roomId, senderId: senderId, content: .text(text), messageId: edited).kept
        guard case .text(let keptText) = kept.content else { return nil }
        return Edit(messageId: edited, roomId: roomId, senderId: senderId, text: keptText)
    }
}
