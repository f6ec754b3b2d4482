import Foundation
import RelayCore
import Testing

/// The rule that makes a Ditto message document a push, as tables: each skip reason, each recipient rule,
/// the texts with and without the mirror's documents.
@Suite struct DittoMessageRuleTests {
    /// The relay's clock: 2026-12-02T18:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_796_234_400)
    /// A Swift SDK message id: an upper-case UUID, kept exactly.
    static let messageId = "4B1D0C6E-8F3A-4E55-9B2A-0C1D2E3F4A5B"
    static let rule = DittoMessageRule()

    /// RFC 3339 text `seconds` after ``now``.
    static func time(_ seconds: TimeInterval) -> JSONValue {
        .string(Timestamp.rfc3339(now.addingTimeInterval(seconds)))
    }

    /// A message of `alice` in `room-1`, written 10 s before ``now``, with `changes` applied (`nil` removes
    /// a field).
    static func document(_ changes: [String: JSONValue?] = [:], id: String = messageId) -> DittoDocument {
        var fields: [String: JSONValue] = [
            "_id": .string(id), "roomId": "room-1", "userId": "alice", "text": "hi", "createdOn": time(-10),
            "isArchived": .bool(false), "archivedMessage": .null, "largeImageToken": .null,
        ]
        for (name, value) in changes { fields[name] = value }
        return DittoDocument(id: id, fields: fields)
    }

    static func user(_ id: String, _ fields: [String: JSONValue] = [:]) -> DittoChatUser {
        var all = fields
        all["_id"] = .string(id)
        return DittoChatUser(DittoDocument(id: id, fields: all))
    }

    static func room(_ fields: [String: JSONValue], isDirect: Bool = false) -> DittoMessageFacts.Room {
        var all = fields
        all["_id"] = "room-1"
        return DittoMessageFacts.Room(DittoChatRoom(DittoDocument(id: "room-1", fields: all)), isDirect: isDirect)
    }

    static func new(_ document: DittoDocument, in collection: String = "messages") throws -> DittoMessageRule.Message {
        guard case .new(let message) = rule.screen(document, in: collection, now: now) else {
            throw Skipped()
        }
        return message
    }

    struct Skipped: Error {}

    // MARK: Skip reasons

    @Test(
        arguments: [
            ("archived", ["isArchived": .bool(true)], .ignored),
            ("replaces another (JS edit or delete)", ["archivedMessage": "0A1B"], .editOrDelete),
            ("edited", ["isEdited": .bool(true)], .editOrDelete),
            (
                "deleted",
                [
                    "isDeleted": .bool(true), "text": "[deleted message]", "createdOn": time(0),
                    "archivedMessage": "0A1B",
                ],
                .editOrDelete
            ),
            ("edited and archived", ["isEdited": .bool(true), "isArchived": .bool(true)], .editOrDelete),
            ("no text, no image", ["text": nil], .ignored),
            ("a null text, no image", ["text": .null], .ignored),
            ("blank text, no image", ["text": " \u{200B}"], .ignored),
            ("301 s old", ["createdOn": time(-301)], .tooOld),
            ("a day old", ["createdOn": time(-86_400)], .tooOld),
        ] as [(String, [String: JSONValue?], DittoEventOutcome)]
    )
    func skipped(label: String, changes: [String: JSONValue?], outcome: DittoEventOutcome) {
        #expect(Self.rule.screen(Self.document(changes), in: "messages", now: Self.now) == .skip(outcome), "\(label)")
    }

    @Test(
        arguments: [
            ("no createdOn", ["createdOn": nil], .createdOn),
            ("createdOn not a time", ["createdOn": "yesterday"], .createdOn),
            ("createdOn a number", ["createdOn": .number(1_796_234_390)], .createdOn),
            ("no roomId", ["roomId": nil], .roomId),
            ("roomId not a string", ["roomId": .number(1)], .roomId),
            ("no userId", ["userId": nil], .userId),
            ("blank userId", ["userId": " "], .userId),
            ("userId over 256 bytes", ["userId": .string(String(repeating: "u", count: 257))], .userId),
            ("text a number", ["text": .number(42)], .text),
            ("text an object", ["text": .object(["en": "hi"])], .text),
            ("text a number beside an image", ["text": .number(42), "largeImageToken": "t"], .text),
            ("roomId before text", ["roomId": nil, "text": .number(42)], .roomId),
        ] as [(String, [String: JSONValue?], DittoMessageRule.MessageField)]
    )
    func unreadable(label: String, changes: [String: JSONValue?], field: DittoMessageRule.MessageField) {
        let screened = Self.rule.screen(Self.document(changes), in: "messages", now: Self.now)
        #expect(screened == .unreadable(field: field), "\(label)")
    }

    @Test(
        arguments: [
            ("plain", [:]),
            ("exactly 300 s old", ["createdOn": time(-300)]),
            ("an image without text", ["text": nil, "thumbnailImageToken": .object(["id": "t"])]),
            ("explicit false flags", ["isEdited": .bool(false), "isDeleted": .bool(false)]),
            ("an hour in the future", ["createdOn": time(3600)]),
        ] as [(String, [String: JSONValue?])]
    )
    func pushed(label: String, changes: [String: JSONValue?]) {
        guard case .new = Self.rule.screen(Self.document(changes), in: "messages", now: Self.now) else {
            Issue.record("\(label) was skipped")
            return
        }
    }

    @Test func theAgeLimitIsTheRulesSetting() {
        let strict = DittoMessageRule(maxMessageAgeSeconds: 5)
        #expect(strict.screen(Self.document(), in: "messages", now: Self.now) == .skip(.tooOld))
        #expect(DittoMessageRule().maxMessageAgeSeconds == 300)
    }

    @Test func anIdTheRelayDoesNotTakeIsUnreadable() {
        let long = String(repeating: "m", count: 257)
        #expect(Self.rule.screen(Self.document(id: long), in: "messages", now: Self.now) == .unreadable(field: .id))
    }

    @Test func aFutureCreatedOnIsClampedToNow() throws {
        let message = try Self.new(Self.document(["createdOn": Self.time(3600)]))
        #expect(message.createdOn == Self.now)
        // Clamped, a read date at the arrival time counts as read; one before it does not.
        let facts = DittoMessageFacts(subscribers: [
            .init(userId: "bob", subscription: .readAt(Self.now)),
            .init(userId: "carol", subscription: .readAt(Self.now.addingTimeInterval(-1))),
        ])
        #expect(Self.rule.recipients(of: message, facts: facts) == ["carol"])
    }

    @Test func theScreenedMessageKeepsTheDocumentsValues() throws {
        let message = try Self.new(
            Self.document(["mentions": .array([.object(["userId": "dave", "startIndex": .number(0)])])]),
            in: "dm_messages"
        )
        #expect(message.id == Self.messageId)
        #expect(message.roomId == "room-1" && message.senderId == "alice" && message.text == "hi")
        #expect(message.createdOn == Self.now.addingTimeInterval(-10))
        #expect(message.mentionedUserIds == ["dave"] && !message.hasImage && message.isInDMCollection)
        #expect(try !Self.new(Self.document(), in: "messages").isInDMCollection)
    }

    // MARK: Recipients

    /// Users of the mirror, one per rule; the message is `alice`'s in `room-1`, written at now − 10 s.
    static let users: [DittoChatUser] = [
        user("alice", ["name": "Alice", "subscriptions": .object(["room-1": time(-60)])]),
        user("bob", ["subscriptions": .object(["room-1": time(-60)])]),
        user("nullSubscription", ["subscriptions": .object(["room-1": .null])]),
        user("otherRoom", ["subscriptions": .object(["room-2": time(-60)])]),
        user("readAtCreation", ["subscriptions": .object(["room-1": time(-10)])]),
        user("readAfter", ["subscriptions": .object(["room-1": time(-1)])]),
        user("unreadableDate", ["subscriptions": .object(["room-1": "soon"])]),
        user("mentionedByDocument", ["mentions": .object(["room-1": .array([.string(messageId)])])]),
        user("mentionedElsewhere", ["mentions": .object(["room-2": .array([.string(messageId)])])]),
        user("mentionedForAnother", ["mentions": .object(["room-1": .array(["0A1B"])])]),
        user("mentionedAndRead", ["subscriptions": .object(["room-1": time(0)])]),
        user("9F2C0A7E-1B2C-4D5E-8F90-A1B2C3D4E5F6", ["subscriptions": .object(["room-1": .null])]),
    ]

    @Test(arguments: [
        ("subscribed", "bob", true),
        ("subscription null", "nullSubscription", false),
        ("subscribed to another room", "otherRoom", false),
        ("read date equal to createdOn", "readAtCreation", false),
        ("read after createdOn", "readAfter", false),
        ("subscribed, date unreadable", "unreadableDate", true),
        ("mentioned by the message", "mentionedByMessage", true),
        ("mentioned by the message, upper-case UUID", "9F2C0A7E-1B2C-4D5E-8F90-A1B2C3D4E5F6", true),
        ("mentioned by the message, already read", "mentionedAndRead", false),
        ("mentioned by its user document", "mentionedByDocument", true),
        ("user document mentions it in another room", "mentionedElsewhere", false),
        ("user document mentions another message", "mentionedForAnother", false),
        ("the sender, subscribed and mentioned", "alice", false),
    ])
    func publicRoom(label: String, userId: String, notified: Bool) throws {
        let message = try Self.new(
            Self.document([
                "mentions": .array(
                    ["mentionedByMessage", "9F2C0A7E-1B2C-4D5E-8F90-A1B2C3D4E5F6", "mentionedAndRead", "alice"].map {
                        .object(["userId": .string($0)])
                    }
                )
            ])
        )
        let facts = DittoMessageFacts(for: message, room: Self.room(["name": "Design"]), users: Self.users)
        let recipients = Self.rule.recipients(of: message, facts: facts)
        #expect(recipients.contains(userId) == notified, "\(label)")
        #expect(
            recipients == [
                "9F2C0A7E-1B2C-4D5E-8F90-A1B2C3D4E5F6", "bob", "mentionedByDocument", "mentionedByMessage",
                "unreadableDate",
            ]
        )
    }

    @Test(arguments: [
        ("participant", "carol", true),
        ("subscribed, not a participant", "bob", false),
        ("mentioned, not a participant", "mentionedByMessage", false),
        ("participant who read it", "readAfter", false),
        ("the sender", "alice", false),
    ])
    func dmRoom(label: String, userId: String, notified: Bool) throws {
        let message = try Self.new(
            Self.document(["mentions": .array([.object(["userId": "mentionedByMessage"])])]),
            in: "dm_messages"
        )
        let room = Self.room(
            ["name": "Alice & Carol", "participants": ["alice", "carol", "readAfter"]],
            isDirect: true
        )
        let facts = DittoMessageFacts(for: message, room: room, users: Self.users)
        let recipients = Self.rule.recipients(of: message, facts: facts)
        #expect(recipients.contains(userId) == notified, "\(label)")
        #expect(recipients == ["carol"])
    }

    @Test func withoutTheRoomTheMirrorsSubscribersAndMentionsAreNotified() throws {
        let message = try Self.new(Self.document(), in: "dm_messages")
        let facts = DittoMessageFacts(
            subscribers: [.init(userId: "carol", subscription: .readAt(Self.now.addingTimeInterval(-60)))],
            mentionedByUserDocuments: ["dave"]
        )
        #expect(Self.rule.recipients(of: message, facts: facts) == ["carol", "dave"])
    }

    @Test func recipientsAreDeduplicatedByBytesAndSorted() throws {
        let precomposed = "jos\u{E9}", decomposed = "jose\u{301}"
        let message = try Self.new(
            Self.document([
                "userId": .string(precomposed),
                "mentions": .array([.object(["userId": "zoe"]), .object(["userId": .string(decomposed)])]),
            ])
        )
        let facts = DittoMessageFacts(
            subscribers: [
                .init(userId: "zoe", subscription: .unreadable),
                .init(userId: precomposed, subscription: .unreadable),
                .init(userId: "Zoe", subscription: .unreadable),
            ],
            mentionedByUserDocuments: ["zoe", "zoe", "", String(repeating: "x", count: 257)]
        )
        // The sender is the precomposed id only; the decomposed one is another user. Bad ids are left out.
        #expect(Self.rule.recipients(of: message, facts: facts) == ["Zoe", decomposed, "zoe"])
    }

    @Test func aDMParticipantsReadDateComesFromTheSubscribers() throws {
        let message = try Self.new(Self.document(), in: "dm_messages")
        let room = Self.room(["participants": ["alice", "carol"]], isDirect: true)
        let read = DittoMessageFacts(
            room: room,
            subscribers: [.init(userId: "carol", subscription: .readAt(Self.now.addingTimeInterval(-10)))]
        )
        #expect(Self.rule.recipients(of: message, facts: read).isEmpty)
        #expect(Self.rule.recipients(of: message, facts: DittoMessageFacts(room: room)) == ["carol"])
    }

    // MARK: Texts

    struct TextCase: Sendable, CustomTestStringConvertible {
        var label: String
        var collection = "messages"
        var room: DittoMessageFacts.Room?
        var senderName: String?
        var changes: [String: JSONValue?] = [:]
        var title: String
        var body: String
        var testDescription: String { label }
    }

    static let image: JSONValue = .object(["id": "large"])

    @Test(arguments: [
        TextCase(
            label: "room",
            room: room(["name": "Design"]),
            senderName: "Alice",
            title: "Design",
            body: "Alice: hi"
        ),
        TextCase(
            label: "DM",
            collection: "dm_messages",
            room: room(["name": "Alice & Bob", "participants": ["alice", "bob"]], isDirect: true),
            senderName: "Alice",
            title: "Alice",
            body: "hi"
        ),
        TextCase(
            label: "image in a room",
            room: room(["name": "Design"]),
            senderName: "Alice",
            changes: ["text": nil, "largeImageToken": image],
            title: "Design",
            body: "Alice: 📷 Image"
        ),
        TextCase(
            label: "image with text in a room",
            room: room(["name": "Design"]),
            senderName: "Alice",
            changes: ["text": "look", "thumbnailImageToken": image],
            title: "Design",
            body: "Alice: look"
        ),
        TextCase(
            label: "image in a DM",
            room: room(["participants": ["alice", "bob"]], isDirect: true),
            senderName: "Alice",
            changes: ["text": "", "largeImageToken": image],
            title: "Alice",
            body: "📷 Image"
        ),
        TextCase(label: "room unknown", senderName: "Alice", title: "New message", body: "Alice: hi"),
        TextCase(
            label: "image, room and sender unknown",
            changes: ["text": nil, "largeImageToken": image],
            title: "New message",
            body: "📷 Image"
        ),
        TextCase(label: "sender unknown", room: room(["name": "Design"]), title: "Design", body: "hi"),
        TextCase(label: "room and sender unknown", title: "New message", body: "hi"),
        TextCase(
            label: "room without a name",
            room: room([:]),
            senderName: "Alice",
            title: "New message",
            body: "Alice: hi"
        ),
        TextCase(
            label: "blank sender name",
            room: room(["name": "Design"]),
            senderName: " \n",
            title: "Design",
            body: "hi"
        ),
        TextCase(
            label: "DM, sender unknown",
            room: room(["name": "Alice & Bob", "participants": ["alice", "bob"]], isDirect: true),
            title: "Alice & Bob",
            body: "hi"
        ),
        TextCase(
            label: "DM collection, room unknown",
            collection: "dm_messages",
            senderName: "Alice",
            title: "Alice",
            body: "hi"
        ),
        TextCase(
            label: "DM collection, room and sender unknown",
            collection: "dm_messages",
            title: "New message",
            body: "hi"
        ),
    ])
    func texts(_ test: TextCase) throws {
        let message = try Self.new(Self.document(test.changes), in: test.collection)
        let push = Self.rule.push(for: message, facts: DittoMessageFacts(room: test.room, senderName: test.senderName))
        let shown = push.message.shown
        #expect(shown.title == test.title)
        #expect(shown.body == test.body)
        #expect(shown.roomId == "room-1")
        #expect(shown.messageId == Self.messageId)
    }

    @Test func thePushIsTheWebhooksChatMessageWithTheExactIds() throws {
        let message = try Self.new(Self.document(["roomId": "7C3D9E1F-0A2B-4C5D-8E6F-708192A3B4C5"]))
        let push = Self.rule.push(
            for: message,
            facts: DittoMessageFacts(
                senderName: "Alice",
                subscribers: [.init(userId: "bob", subscription: .unreadable)]
            )
        )
        #expect(push.recipients == ["bob"])
        #expect(
            push.message
                == ChatMessage(
                    roomId: "7C3D9E1F-0A2B-4C5D-8E6F-708192A3B4C5",
                    senderId: "alice",
                    content: .text("hi"),
                    messageId: "4B1D0C6E-8F3A-4E55-9B2A-0C1D2E3F4A5B",
                    roomName: "New message",
                    senderName: "Alice"
                )
        )
        let shown = push.message.shown
        #expect(shown.messageId == "4B1D0C6E-8F3A-4E55-9B2A-0C1D2E3F4A5B")
        #expect(shown.roomId == "7C3D9E1F-0A2B-4C5D-8E6F-708192A3B4C5")
    }

    /// The push names its mentions (the message's and the user documents', each once) and whether it is a
    /// DM, for the recipients' levels.
    @Test func thePushCarriesItsMentionsAndWhetherItIsADM() throws {
        let mentions: JSONValue = .array([.object(["userId": "zoe"]), .object(["userId": "bob"])])
        let message = try Self.new(Self.document(["mentions": mentions]))
        let room = Self.rule.push(for: message, facts: DittoMessageFacts(mentionedByUserDocuments: ["bob", "amy"]))
        #expect(room.mentionedUserIds == ["amy", "bob", "zoe"])
        #expect(!room.isDirect)
        let dm = Self.rule.push(
            for: message,
            facts: DittoMessageFacts(room: Self.room(["participants": ["alice", "bob"]], isDirect: true))
        )
        #expect(dm.isDirect && dm.mentionedUserIds == ["bob", "zoe"])
        let unknownRoom = try Self.new(Self.document(), in: "dm_messages")
        #expect(Self.rule.push(for: unknownRoom, facts: DittoMessageFacts()).isDirect)
    }

    /// The rule keeps the whole text; each platform's rendering cuts it (APNsCoreTests' `ChatPayloadTests`).
    @Test func aLongTextIsCutByTheWebhooksRules() throws {
        let long = String(repeating: "é", count: 5000)
        let message = try Self.new(Self.document(["text": .string(long)]))
        let push = Self.rule.push(for: message, facts: DittoMessageFacts(senderName: "Alice"))
        let body = try #require(push.message.shown.body)
        #expect(body == "Alice: " + long)
    }
}
