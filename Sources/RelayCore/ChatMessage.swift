import Foundation

/// A message the Ditto chat SDK reported through `DittoChatPushNotificationDelegate`, as the host app
/// forwards it to the relay (`didSendMessage` / `didSendImageMessage`).
///
/// The delegate carries neither message id, sender id nor recipients: the host app adds what it knows.
public struct ChatMessage: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        /// `dittoChat(_:didSendMessage:inRoom:)`.
        case text(String)
        /// `dittoChat(_:didSendImageMessageInRoom:)`; caption and image URL when the app has them.
        case image(caption: String?, imageURL: String?)
    }

    public var roomId: String
    public var senderId: String
    public var content: Content
    public var messageId: String?
    public var roomName: String?
    public var senderName: String?

    public init(
        roomId: String,
        senderId: String,
        content: Content,
        messageId: String? = nil,
        roomName: String? = nil,
        senderName: String? = nil
    ) {
        self.roomId = roomId
        self.senderId = senderId
        self.content = content
        self.messageId = messageId
        self.roomName = roomName
        self.senderName = senderName
    }

    /// The longest id (room, sender, message, user) accepted, in BYTES of UTF-8.
    public static let maxIdBytes = 256

    /// The payload for this message: alert title = room name, body = "Sender: text" (or the text), sound
    /// "default", thread-id = room id; image messages add mutable-content 1 and use the caption or
    /// "📷 Image"; top-level `dittoChatRoomId` always, `dittoChatMessageId` when known. A room name, sender
    /// name or caption that ``StringProtocol/isBlank`` counts as absent. An image message's URL goes in the
    /// top-level `imageUrl`.
    /// - Parameter privacy: when true the body is "New message" and no text or image URL of the message is
    ///   sent.
    public func payload(privacy: Bool = false) -> ChatPayload {
        let text: String
        switch content {
        case .text(let body): text = body
        case .image(let caption, _): text = caption.nonBlank ?? ChatPayload.imageBody
        }
        let body = privacy ? "New message" : senderName.nonBlank.map { "\($0): \(text)" } ?? text
        var aps = APS(
            alert: .init(title: privacy ? nil : roomName.nonBlank, body: body),
            sound: "default",
            threadId: roomId
        )
        if case .image = content { aps.mutableContent = 1 }
        var imageUrl: String?
        if !privacy, case .image(_, let url) = content { imageUrl = url }
        return ChatPayload(aps: aps, dittoChatRoomId: roomId, dittoChatMessageId: messageId, imageUrl: imageUrl)
    }

    /// apns-collapse-id: the message id when it fits APNs' 64-byte limit, else none.
    public var collapseId: String? {
        guard let messageId, messageId.utf8.count <= APNsLimits.collapseIdMaxBytes else { return nil }
        return messageId
    }
}
