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
        /// No message: removes the notification of the deleted message `messageId` from a device that
        /// showed it (``ChatMessage/removal(of:roomId:senderId:deleteId:)``).
        case removal(messageId: String)
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

    /// Which webhook reported it.
    public var kind: NotificationKind {
        switch content {
        case .text: .message
        case .image: .imageMessage
        case .removal: .removal
        }
    }

    /// The longest id (room, sender, message, user) accepted, in BYTES of UTF-8.
    public static let maxIdBytes = 256

    /// The most Characters of a room or sender name a push shows; a longer one is cut and ends with "…".
    /// A name is a label: cut here, the message's text keeps the room the push has left.
    public static let maxShownNameCharacters = 100
    /// The most BYTES of UTF-8 a shown name takes (its "…" included): Characters can be of any size (a
    /// letter with a thousand combining marks is one), and a name must never crowd out the text.
    public static let maxShownNameBytes = 256

    /// What privacy mode shows instead of the message.
    public static let privateBody = "New message"

    /// The message as privacy mode records it: body "New message", no names, caption or image URL; the ids
    /// and the kind stay (an image message still lets the app's extension run).
    public var withoutTexts: ChatMessage {
        var copy = self
        copy.roomName = nil
        copy.senderName = nil
        switch content {
        case .text: copy.content = .text(Self.privateBody)
        case .image: copy.content = .image(caption: Self.privateBody, imageURL: nil)
        case .removal: break
        }
        return copy
    }

    /// What every platform shows of this message (``ShownMessage``): title = room name, body = "Sender: text"
    /// (or the text); an image message's body is its caption or ``ShownMessage/imageBody``. Texts and names
    /// show as ``ShownText`` cleans them (names on one line); a room name, sender name or caption that
    /// ``StringProtocol/isBlank`` then counts as absent; names are cut to ``maxShownNameCharacters`` and
    /// ``maxShownNameBytes``. An image message's URL is kept when ``ImageURL`` takes it (a row stored under an
    /// older rule shows no image). The texts are uncut otherwise: each platform's rendering cuts them to its
    /// own limit. No badge, mode alert: the job sets those (``DeliveryJob/shown``).
    public var shown: ShownMessage {
        let text: String
        switch content {
        case .text(let body): text = ShownText.text(body)
        case .image(let caption, _): text = caption.map(ShownText.text).nonBlank ?? ShownMessage.imageBody
        case .removal(let removed):
            return ShownMessage(
                kind: .removal,
                title: nil,
                body: nil,
                roomId: roomId,
                messageId: messageId,
                removedMessageId: removed
            )
        }
        let sender = senderName.map(ShownText.name).nonBlank.map(Self.shownName)
        var imageURL: String?
        if case .image(_, let url) = content { imageURL = url.flatMap { ImageURL.problem($0) == nil ? $0 : nil } }
        return ShownMessage(
            kind: kind,
            title: roomName.map(ShownText.name).nonBlank.map(Self.shownName),
            body: sender.map { "\($0): \(text)" } ?? text,
            roomId: roomId,
            messageId: messageId,
            imageURL: imageURL
        )
    }

    /// `name` within ``maxShownNameCharacters`` and ``maxShownNameBytes``: its longest prefix of whole
    /// Characters that fits, ended with "…" when cut.
    static func shownName(_ name: String) -> String {
        TextFitting.prefix(name, maxCharacters: maxShownNameCharacters, maxBytes: maxShownNameBytes)
    }
}
