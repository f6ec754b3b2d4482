import Foundation
import RelayCore
import Testing

/// The grace window's setting (`apps[].pushDelaySeconds`) and the removal a delete makes, as RelayCore has
/// them.
@Suite struct GraceConfigurationTests {
    typealias Folder = PlatformConfigurationTests.Folder

    @Test func theDelayIsReadDefaultsTo0AndIsRefusedOutOf0To300() throws {
        let folder = try Folder()
        let app = try #require(
            try Configuration.load(file: try folder.appFile(#""pushDelaySeconds":45"#), environment: [:]).apps.first
        )
        #expect(app.pushDelaySeconds == 45)
        let plain = try #require(
            try Configuration.load(file: try folder.appFile(#""ttlSeconds":86400"#), environment: [:]).apps.first
        )
        #expect(plain.pushDelaySeconds == 0)
        for delay in [-1, 301] {
            #expect(
                PlatformConfigurationTests.problems(try folder.appFile(#""pushDelaySeconds":\#(delay)"#))
                    == ["apps[0].pushDelaySeconds: must be 0...300 (seconds a push waits for a read elsewhere)"]
            )
        }
        #expect(PlatformConfigurationTests.problems(try folder.appFile(#""pushDelaySeconds":300"#)).isEmpty)
    }

    /// A JS message document with `fields` added.
    static func document(_ fields: String) throws -> DittoDocument {
        let event = try DittoEvent.decode(
            Array(
                """
                {"txnId":1,"type":"documentChanged","collection":"messages","change":{"method":"upsert",
                "oldValue":null,"newValue":{"_id":"d-1","roomId":"room-1","userId":"alice",
                "createdOn":"2027-01-15T08:00:00Z"\(fields)}}}
                """.utf8
            )
        )
        return try #require(event.change).document
    }

    @Test func onlyAnIsDeletedDocumentNamingItsMessageIsADelete() throws {
        let rule = DittoMessageRule()
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let deletion = try #require(
            rule.deletion(try Self.document(#","isDeleted":true,"archivedMessage":"m-1""#), now: now)
        )
        #expect(deletion.messageId == "m-1" && deletion.deleteId == "d-1" && deletion.roomId == "room-1")
        #expect(deletion.archivedIndexRow.isArchived && deletion.archivedIndexRow.key == "m-1")
        // A JS edit archives its original too, but is no delete: it is indexed in the original's place.
        let edit = try Self.document(#","isEdited":true,"archivedMessage":"m-1","text":"fixed""#)
        #expect(rule.deletion(edit, now: now) == nil)
        #expect(IndexedMessage(dittoDocument: edit, arrival: now)?.isArchived == false)
        #expect(rule.deletion(try Self.document(#","isDeleted":true"#), now: now) == nil)
        #expect(IndexedMessage(dittoDocument: try Self.document(#","isDeleted":true"#), arrival: now) == nil)
    }

    /// A removal names the removed message and is its delete's own message; it never wakes (APNsCoreTests'
    /// `APNsPayloadRulesTests` has its payload).
    @Test func aRemovalNamesTheRemovedIdAndNeverWakes() {
        let removal = ChatMessage.removal(of: "m-1", roomId: "room-1", senderId: "alice", deleteId: "d-1")
        #expect(removal.kind == .removal && removal.removedMessageId == "m-1" && removal.messageId == "d-1")
        var shown = removal.shown
        shown.mode = .wake
        #expect(!shown.wakes && shown.removedMessageId == "m-1")
    }
}
