import Foundation

/// Which Ditto message document is a push, to whom, with which texts: DittoChat's own rules in one place,
/// shared by every way a message reaches the relay from Ditto (its change stream and webhook bridges).
///
/// Two steps, so that a caller asks its mirror only about messages that are pushed: ``screen(_:in:now:)``
/// decides from the document alone, ``push(for:facts:)`` then names the recipients and builds the texts
/// from what the mirror knows (``DittoMessageFacts``). Whether the relay saw the `_id` before (a replay)
/// is the store's to decide.
public struct DittoMessageRule: Sendable, Equatable {
    /// A message document that passed ``screen(_:in:now:)``: a new message to push.
    public struct Message: Sendable, Equatable {
        /// The document's `_id`, exactly as Ditto has it (Swift writes upper-case UUIDs).
        public let id: String
        public let roomId: String
        /// The sender's Ditto user id (`userId`).
        public let senderId: String
        /// `createdOn`, no later than the relay's clock when the message arrived.
        public let createdOn: Date
        public let text: String?
        /// Whether an image token is set.
        public let hasImage: Bool
        /// The user ids the message mentions (`mentions[].userId`).
        public let mentionedUserIds: [String]
        /// Whether its collection is the DM messages collection (what decides a DM when the room is unknown).
        public let isInDMCollection: Bool
        /// The collection the document is in, as the event names it.
        public let collection: String
    }

    /// What the document alone says.
    public enum Screening: Sendable, Equatable {
        /// A new message: gather its ``DittoMessageFacts`` and call ``push(for:facts:)``.
        case new(Message)
        /// Not a push: ``DittoEventOutcome/ignored``, ``DittoEventOutcome/editOrDelete`` or
        /// ``DittoEventOutcome/tooOld``.
        case skip(DittoEventOutcome)
        /// Not a push, as ``DittoEventOutcome/invalid``: the document lacks `field`, one a push needs, or
        /// holds it in a form DittoChat never writes.
        case unreadable(field: MessageField)
    }

    /// The fields of a message document a push needs, in the order ``screen(_:in:now:)`` checks them; a log
    /// line or an answer names one by its key.
    public enum MessageField: String, Sendable, CaseIterable {
        case id = "_id"
        case roomId, userId, createdOn, text
    }

    /// A message's push: who gets it and what it shows.
    public struct Push: Sendable, Equatable {
        /// Ditto user ids, each once (compared as bytes), sorted by their bytes of UTF-8; may be empty.
        public var recipients: [String]
        /// The message as a webhook would give it, so its payload is rendered and cut by the same rules.
        public var message: ChatMessage
        /// The users the message mentions: those it names (`mentions[].userId`) and those whose
        /// `mentions[roomId]` lists it, each once, sorted by their bytes of UTF-8. A level of `mentions`
        /// admits them.
        public var mentionedUserIds: [String]
        /// Whether the message is a DM (``push(for:facts:)``): every message of a DM counts as a mention.
        public var isDirect: Bool
    }

    /// The title of a push whose room and sender the mirror does not know.
    public static let untitled = "New message"
    /// The default of ``maxMessageAgeSeconds``.
    public static let defaultMaxMessageAgeSeconds = 300

    public var collections: DittoCollections
    /// The oldest a message may be when it arrives, in SECONDS on the relay's clock, and still be pushed.
    public var maxMessageAgeSeconds: Int

    public init(
        collections: DittoCollections = DittoCollections(),
        maxMessageAgeSeconds: Int = DittoMessageRule.defaultMaxMessageAgeSeconds
    ) {
        self.collections = collections
        self.maxMessageAgeSeconds = maxMessageAgeSeconds
    }

    /// Whether a message document (of a message collection, ``DittoCollections/kind(of:roomMessageCollections:)``)
    /// is a new message, read on its own, in this order:
    /// - `archivedMessage` set, `isEdited` or `isDeleted`: ``DittoEventOutcome/editOrDelete`` (a JS edit or
    ///   delete is a new document, not a new message);
    /// - `isArchived`: ``DittoEventOutcome/ignored`` (the SDK shows it nowhere);
    /// - `_id`, `roomId` or `userId` missing or not an id the relay takes (``ChatMessage/idProblem(_:)``),
    ///   `createdOn` missing or not an RFC 3339 time, or `text` set to neither a string nor null:
    ///   ``Screening/unreadable(field:)``, the first such field;
    /// - neither a text that shows nor an image token: ``DittoEventOutcome/ignored``;
    /// - `createdOn` more than ``maxMessageAgeSeconds`` before `now`: ``DittoEventOutcome/tooOld``. A
    ///   `createdOn` after `now` counts as `now` (a sender's clock ahead of the relay's).
    /// - Parameter now: the relay's clock when the event arrived.
    public func screen(_ document: DittoDocument, in collection: String, now: Date) -> Screening {
        let message = DittoChatMessage(document)
        if message.archivedMessage != nil || message.isEdited || message.isDeleted { return .skip(.editOrDelete) }
        if message.isArchived { return .skip(.ignored) }
        guard ChatMessage.idProblem(document.id) == nil else { return .unreadable(field: .id) }
        guard let roomId = message.roomId, ChatMessage.idProblem(roomId) == nil else {
            return .unreadable(field: .roomId)
        }
        guard let senderId = message.userId, ChatMessage.idProblem(senderId) == nil else {
            return .unreadable(field: .userId)
        }
        guard let written = message.createdOn else { return .unreadable(field: .createdOn) }
        if message.text == nil, let text = document.fields["text"], text != .null { return .unreadable(field: .text) }
        guard message.text.nonBlank != nil || message.hasImage else { return .skip(.ignored) }
        let createdOn = min(written, now)
        if now.timeIntervalSince(createdOn) > TimeInterval(maxMessageAgeSeconds) { return .skip(.tooOld) }
        return .new(
            Message(
                id: document.id,
                roomId: roomId,
                senderId: senderId,
                createdOn: createdOn,
                text: message.text,
                hasImage: message.hasImage,
                mentionedUserIds: message.mentionedUserIds,
                isInDMCollection: collections.dmMessages.isSameId(collection),
                collection: collection
            )
        )
    }

    /// The room of a message document of `collection` among the mirrored rooms holding its room id
    /// (`rooms`, DM rooms first): the one whose messages are read from `collection`, else the first. Any
    /// peer can write a room, and a DM room and a public room are documents of two collections that may
    /// hold one id; the message's collection tells which room it is in, so a DM room written with a public
    /// room's id does not take that room's messages (which it would show in no room: nobody notified).
    public func room(of collection: String, among rooms: [DittoMessageFacts.Room]) -> DittoMessageFacts.Room? {
        rooms.first { isReadByItsRoom(collection: collection, room: $0) } ?? rooms.first
    }

    /// Whether a message document of `collection` is in the collection its room's messages are read from,
    /// as the SDK reads them: the room's `messagesId`, else the DM messages collection for a DM room and the
    /// messages collection for a public one. A document elsewhere is shown in no room, so it counts as
    /// unread for nobody, deletes nothing and notifies nobody: a document written to another room's
    /// collection, or to the public collection with a DM room's id, reaches no one through the relay
    /// either. A room the mirror does not hold (yet) takes a document of any message collection.
    /// - Parameter room: the document's room as the mirror holds it, nil when it does not.
    public func isReadByItsRoom(collection: String, room: DittoMessageFacts.Room?) -> Bool {
        guard let room else { return true }
        let read = room.document.messagesId.nonBlank ?? (room.isDirect ? collections.dmMessages : collections.messages)
        return read.isSameId(collection)
    }

    /// The push of a new message: its recipients (``recipients(of:facts:)``) and its texts.
    ///
    /// Texts come from Ditto's documents: title = the room's `name`, body = "<sender name>: <text>"; in a DM
    /// the title is the sender's `name` and the body the text alone. An image message (any image token)
    /// shows its text, or "📷 Image" without one ("<sender>: 📷 Image" in a room). A name the mirror lacks
    /// (or that is blank): a DM is titled with the sender's name, else the room's, else ``untitled``; a room
    /// with the room's name, else ``untitled``; a body without a sender name is the text alone. A message is
    /// a DM when its room is a DM room, or, when the mirror lacks the room, when it is in the DM messages
    /// collection. `dittoChatRoomId` is the room id and `dittoChatMessageId` the `_id`, exactly.
    public func push(for message: Message, facts: DittoMessageFacts) -> Push {
        let isDirect = facts.room?.isDirect ?? message.isInDMCollection
        let senderName = facts.senderName.nonBlank
        let roomName = facts.room?.document.name.nonBlank
        let title = (isDirect ? senderName ?? roomName : roomName) ?? Self.untitled
        let content: ChatMessage.Content =
            message.hasImage ? .image(caption: message.text, imageURL: nil) : .text(message.text ?? "")
        let chat = ChatMessage(
            roomId: message.roomId,
            senderId: message.senderId,
            content: content,
            messageId: message.id,
            roomName: title,
            senderName: isDirect ? nil : senderName
        )
        var mentioned: [String] = []
        var seen: Set<[UInt8]> = []
        for user in message.mentionedUserIds + facts.mentionedByUserDocuments
        where seen.insert(Array(user.utf8)).inserted {
            mentioned.append(user)
        }
        return Push(
            recipients: recipients(of: message, facts: facts),
            message: chat,
            mentionedUserIds: mentioned.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) },
            isDirect: isDirect
        )
    }
}
