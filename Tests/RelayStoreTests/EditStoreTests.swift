import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// A JS edit of a Ditto message on every engine: a push of the message not yet sent (the grace window, a
/// retry) shows the edit's text; an edit by anyone but the message's sender, or in another room, changes no
/// push.
@Suite struct EditStoreTests {
    typealias F = StoreFixtures
    typealias D = DittoMirrorTests
    typealias G = GraceWindowStoreTests

    /// A JS edit document `id` of `edited` by `sender` in `room`, with `text`.
    static func edit(
        _ id: String,
        of edited: String,
        txn: Int,
        text: String,
        room: String = "room-1",
        from sender: String = "alice"
    ) throws -> DittoEvent {
        try DeleteAuthorTests.replacing(
            id,
            of: edited,
            txn: txn,
            text: text,
            flag: "isEdited",
            createdOn: D.at.addingTimeInterval(-10),
            room: room,
            from: sender
        )
    }

    /// The texts of the pushes claimed now.
    static func claimedTexts(_ store: any Store) async throws -> [ChatMessage.Content] {
        try await G.claim(store, at: D.at).map(\.content.message.content)
    }

    @Test(arguments: StoreKind.allCases) func aPushNotYetSentShowsTheEditsText(kind: StoreKind) async throws {
        let store = try await DeleteAuthorTests.storeWithMessage(kind)
        let counts = try await D.apply([try Self.edit("e-1", of: "m-1", txn: 3, text: "hello, edited")], to: store)
        #expect(counts.outcomes["messages"] == [.editOrDelete: 1])
        #expect(try await Self.claimedTexts(store) == [.text("hello, edited")])
    }

    @Test(arguments: StoreKind.allCases) func anotherSendersOrRoomsEditChangesNoPush(kind: StoreKind) async throws {
        let store = try await DeleteAuthorTests.storeWithMessage(kind)
        try await D.apply(
            [
                try Self.edit("e-1", of: "m-1", txn: 3, text: "mallory was here", from: "mallory"),
                try Self.edit("e-2", of: "m-1", txn: 4, text: "elsewhere", room: "room-2"),
                // Blank: a push cannot show it, so the message's text stays.
                try Self.edit("e-3", of: "m-1", txn: 5, text: " "),
                // An image without a text (or with one that is not a string) leaves a text message's text.
                try D.event(
                    """
                    {"txnId":6,"type":"documentChanged","collection":"messages","change":{"method":"upsert",
                    "oldValue":null,"newValue":{"_id":"e-4","roomId":"room-1","userId":"alice","text":12345,
                    "thumbnailImageToken":{"id":"t"},"createdOn":"\(Timestamp.rfc3339(D.at))",
                    "archivedMessage":"m-1","isEdited":true}}}
                    """
                ),
            ],
            to: store
        )
        #expect(try await Self.claimedTexts(store) == [.text("hello")])
    }
}
