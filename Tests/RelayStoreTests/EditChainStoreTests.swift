import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// The JS SDK's edits and deletes name the document they replace, which after an edit is the edit's own: on
/// every engine, a later edit or delete reaches the notification of the chain's first message, the one the
/// relay pushed.
@Suite struct EditChainStoreTests {
    typealias F = StoreFixtures
    typealias D = DittoMirrorTests
    typealias G = GraceWindowStoreTests
    typealias U = UnreadStoreTests
    typealias E = EditStoreTests
    typealias A = DeleteAuthorTests

    @Test(arguments: StoreKind.allCases) func aDeleteOfAnEditRemovesTheOriginalsPush(kind: StoreKind) async throws {
        let store = try await A.storeWithMessage(kind)
        let jobs = try await G.claim(store, at: D.at)
        #expect(jobs.map(\.token) == [F.token(1)])
        try await store.complete(jobs.map { ($0.deliveryId, .sent) }, at: D.at)

        // The JS edit: the original archived, the edit written; then the delete of the edit.
        try await D.apply(
            [try Self.archived("m-1", txn: 3), try E.edit("e-1", of: "m-1", txn: 4, text: "edited")],
            to: store
        )
        #expect(try await U.unread(store, "bob").total == 1)
        let counts = try await D.apply([try A.delete("d-1", of: "e-1", txn: 5)], to: store)
        #expect(counts.outcomes["messages"] == [.editOrDelete: 1])

        let removals = try await G.claim(store, at: D.at)
        #expect(removals.map(\.token) == [F.token(1)])
        #expect(removals.map(\.content.message.removedMessageId) == ["m-1"])
        #expect(try await G.deliveries(store, messageId: "m-1").byToken[F.token(1)]?.lastReason == "deleted")
        #expect(try await U.unread(store, "bob").total == 0)
        // The chain's first message is deleted once: a replayed delete of the original removes nothing more.
        try await D.apply([try A.delete("d-2", of: "m-1", txn: 6)], to: store)
        #expect(try await store.notificationId(appId: "app-a", messageId: "d-2") == nil)
    }

    /// Message `id` of alice in room-1, archived (as the JS SDK's edit and delete archive what they replace).
    static func archived(_ id: String, txn: Int) throws -> DittoEvent {
        try D.event(
            """
            {"txnId":\(txn),"type":"documentChanged","collection":"messages","change":{"method":"upsert",
            "oldValue":null,"newValue":{"_id":"\(id)","roomId":"room-1","userId":"alice","text":"hello",
            "createdOn":"\(Timestamp.rfc3339(D.at.addingTimeInterval(-10)))","isArchived":true}}}
            """
        )
    }

    @Test(arguments: StoreKind.allCases) func aDeleteOfAnEditCancelsTheOriginalsPendingPush(
        kind: StoreKind
    ) async throws {
        let store = try await A.storeWithMessage(kind)
        try await D.apply(
            [
                try E.edit("e-1", of: "m-1", txn: 3, text: "hello, edited"),
                try E.edit("e-2", of: "e-1", txn: 4, text: "hello again"),
                try A.delete("d-1", of: "e-2", txn: 5),
            ],
            to: store
        )
        #expect(try await G.claim(store, at: D.at).isEmpty)
        let (summary, _) = try await G.deliveries(store, messageId: "m-1")
        #expect(summary.counts == DeliveryCounts(cancelled: 1))
        #expect(try await store.notificationId(appId: "app-a", messageId: "d-1") == nil)
    }

    /// Ditto orders events by document, not across them: a second edit read before the first still chains
    /// back to the message once the first is read.
    @Test(arguments: StoreKind.allCases) func editsReadOutOfOrderStillChainBack(kind: StoreKind) async throws {
        let store = try await A.storeWithMessage(kind)
        try await D.apply(
            [
                try E.edit("e-2", of: "e-1", txn: 3, text: "second edit"),
                try E.edit("e-1", of: "m-1", txn: 4, text: "first edit"),
                try A.delete("d-1", of: "e-2", txn: 5),
            ],
            to: store
        )
        #expect(try await G.claim(store, at: D.at).isEmpty)
        #expect(try await G.deliveries(store, messageId: "m-1").summary.counts == DeliveryCounts(cancelled: 1))
    }

    @Test(arguments: StoreKind.allCases) func aSecondEditReachesTheOriginalsPendingPush(kind: StoreKind) async throws {
        let store = try await A.storeWithMessage(kind)
        try await D.apply(
            [
                try E.edit("e-1", of: "m-1", txn: 3, text: "first edit"),
                try E.edit("e-2", of: "e-1", txn: 4, text: "second edit"),
            ],
            to: store
        )
        #expect(try await E.claimedTexts(store) == [.text("second edit")])
    }
}
