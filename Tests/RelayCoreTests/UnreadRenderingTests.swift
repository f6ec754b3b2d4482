import Foundation
import RelayCore
import Testing

/// What the unread counts take from a Ditto message document, the badge a job renders, and the setting.
@Suite struct UnreadRenderingTests {
    typealias R = DittoMessageRuleTests

    @Test func aMessageDocumentIsIndexedWithItsCreatedOnClampedToItsArrival() throws {
        let indexed = try #require(IndexedMessage(dittoDocument: R.document(), arrival: R.now))
        #expect(
            indexed
                == IndexedMessage(
                    roomId: "room-1",
                    key: R.messageId,
                    senderId: "alice",
                    createdAt: R.now.addingTimeInterval(-10),
                    isArchived: false
                )
        )
        let ahead = IndexedMessage(dittoDocument: R.document(["createdOn": R.time(3600)]), arrival: R.now)
        #expect(ahead?.createdAt == R.now)
        let archived = IndexedMessage(dittoDocument: R.document(["isArchived": .bool(true)]), arrival: R.now)
        #expect(archived?.isArchived == true)
        // A message with no text still counts: the SDK counts documents, not texts.
        #expect(IndexedMessage(dittoDocument: R.document(["text": nil]), arrival: R.now) != nil)
    }

    @Test(
        arguments: [
            ["isDeleted": .bool(true)], ["isDeleted": .bool(true), "archivedMessage": JSONValue.string("m-0")],
            ["roomId": nil], ["userId": nil], ["createdOn": nil], ["createdOn": .string("yesterday")],
            ["createdOn": .string("2026-01-01T25:00:00Z")], ["createdOn": .string("2026-01-01T10:99:00.000Z")],
            ["roomId": .string("")],
        ] as [[String: JSONValue?]]
    )
    func deletesAndIncompleteDocumentsAreNoMessages(changes: [String: JSONValue?]) {
        #expect(IndexedMessage(dittoDocument: R.document(changes), arrival: R.now) == nil)
    }

    /// A JS edit replaces its archived original in the counts: it names the original, whose time the index
    /// gives it (UnreadStoreTests).
    @Test(
        arguments: [
            ["archivedMessage": JSONValue.string("m-0")], ["isEdited": .bool(true), "archivedMessage": .string("m-0")],
        ] as [[String: JSONValue?]]
    )
    func editsAreIndexedInTheirOriginalsPlace(changes: [String: JSONValue?]) {
        let edit = IndexedMessage(dittoDocument: R.document(changes), arrival: R.now)
        #expect(edit?.key == R.messageId && edit?.isArchived == false && edit?.replacedKey == "m-0")
        #expect(edit?.createdAt == R.now.addingTimeInterval(-10))
        #expect(IndexedMessage(dittoDocument: R.document(), arrival: R.now)?.replacedKey == nil)
    }

    static func job(badge: Int?) -> DeliveryJob {
        DeliveryJob(
            deliveryId: 7,
            appId: "chat",
            token: .apns(try! DeviceToken(parsing: String(repeating: "ab", count: 32), environment: .sandbox)),
            attempts: 0,
            deviceRegisteredAt: R.now,
            content: NotificationContent(
                id: UUID(),
                message: ChatMessage(roomId: "room-1", senderId: "alice", content: .text("hi"), messageId: "m-1"),
                sendAs: "com.example.chat",
                expiration: nil,
                createdAt: R.now
            ),
            badge: badge
        )
    }

    /// The job shows its badge above 0 only (APNsCoreTests' `ChatPayloadTests` has the payload's bytes).
    @Test func aJobShowsItsBadgeAndNoneWithout() {
        #expect(Self.job(badge: 4).shown.badge == 4)
        #expect(Self.job(badge: nil).shown == Self.job(badge: nil).content.message.shown)
        #expect(Self.job(badge: nil).shown.badge == nil)
        // A total of 0 is left out of an alert: it would clear the icon while announcing a message (a badge
        // update still sends 0, BadgeUpdateTests).
        #expect(Self.job(badge: 0).shown.badge == nil)
    }

    @Test func badgeIsOffUnlessAnAppSetsIt() throws {
        let decoder = JSONDecoder()
        let base = #"{"id":"chat","topic":"com.example.chat","apiKeySHA256":["\#(String(repeating: "a", count: 64))"]"#
        #expect(try decoder.decode(Configuration.App.self, from: Data((base + "}").utf8)).badge == false)
        let on = try decoder.decode(Configuration.App.self, from: Data((base + #","badge":true}"#).utf8))
        #expect(on.badge)
        #expect(throws: (any Error).self) {
            try decoder.decode(Configuration.App.self, from: Data((base + #","badge":"yes"}"#).utf8))
        }
    }
}
