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
        public let text: String?
    }

    /// The edit a message document makes, read on its own; nil for any document that is no edit (not
    /// `isEdited`, `isDeleted`, no `archivedMessage`, an id the relay does not take) or whose new text a push
    /// cannot show (a text message's text blank or not a string).
    public func edit(_ document: DittoDocument) -> Edit? {
        let message = DittoChatMessage(document)
        guard message.isEdited, !message.isDeleted, let edited = message.archivedMessage,
            ChatMessage.idProblem(edited) == nil,
            let roomId = message.roomId, ChatMessage.idProblem(roomId) == nil,
            let senderId = message.userId, ChatMessage.idProblem(senderId) == nil,
            message.hasImage || message.text.nonBlank != nil
        else { return nil }
        let content: ChatMessage.Content =
            message.hasImage ? .image(caption: message.text, imageURL: nil) : .text(message.text ?? "")
        let kept = ChatMessage(roomId: roomId, senderId: senderId, content: content, messageId: edited).kept
        let text: String? =
            switch kept.content {
            case .text(let text): text
            case .image(let caption, _): caption
            case .removal: nil
            }
        return Edit(messageId: edited, roomId: roomId, senderId: senderId, text: text)
    }
}
