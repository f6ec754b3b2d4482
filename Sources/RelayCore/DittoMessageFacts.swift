import Foundation

/// What a relay's mirror knows about one new message's room and people: the input of
/// ``DittoMessageRule/push(for:facts:)``.
///
/// Each field is one set-based query of the mirror by the message's room id, sender id and `_id` (the
/// room's row, the sender's name, the users subscribed to the room, the users whose `mentions[roomId]`
/// lists the message), so a room of 100k subscribers never loads their user documents. What the mirror
/// does not hold yet is simply absent: the message goes to whom the mirror knows at that moment.
public struct DittoMessageFacts: Sendable, Equatable {
    /// The message's room as the mirror holds it.
    public struct Room: Sendable, Equatable {
        public var document: DittoChatRoom
        /// Whether the room came from the DM rooms collection.
        public var isDirect: Bool

        public init(_ document: DittoChatRoom, isDirect: Bool) {
            self.document = document
            self.isDirect = isDirect
        }
    }

    /// A user whose `subscriptions[roomId]` is set (not null), with what it holds.
    public struct Subscriber: Sendable, Equatable {
        public var userId: String
        public var subscription: DittoChatUser.Subscription

        public init(userId: String, subscription: DittoChatUser.Subscription) {
            self.userId = userId
            self.subscription = subscription
        }
    }

    /// The room; nil when the mirror does not hold it (yet).
    public var room: Room?
    /// The sender's `name` from its user document; nil when the mirror holds no such document or name.
    public var senderName: String?
    /// Every user subscribed to the room, in any order.
    public var subscribers: [Subscriber]
    /// The users whose user document's `mentions[roomId]` lists the message's `_id`, in any order.
    public var mentionedByUserDocuments: [String]

    public init(
        room: Room? = nil,
        senderName: String? = nil,
        subscribers: [Subscriber] = [],
        mentionedByUserDocuments: [String] = []
    ) {
        self.room = room
        self.senderName = senderName
        self.subscribers = subscribers
        self.mentionedByUserDocuments = mentionedByUserDocuments
    }
}
