import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// Who may delete a Ditto message, on every engine: only its author, in its room, from its kind of message
/// collection; anyone else's delete document changes nothing. One removal per deleted message, however many
/// delete documents name it. An edit keeps its original's time in the counts.
@Suite struct DeleteAuthorTests {
    typealias F = StoreFixtures
    typealias D = DittoMirrorTests
    typealias U = UnreadStoreTests
    typealias G = GraceWindowStoreTests

    /// A JS delete document `id` of `deleted` by `sender` in `room` of `collection`.
    static func delete(
        _ id: String,
        of deleted: String,
        txn: Int,
        room: String = "room-1",
        from sender: String = "alice",
        collection: String = "messages"
    ) throws -> DittoEvent {
        try replacing(
            id,
            of: deleted,
            txn: txn,
            text: "[deleted message]",
            flag: "isDeleted",
            createdOn: D.at,
            room: room,
            from: sender,
            collection: collection
        )
    }

    /// A JS document `id` that replaces `replaced` (`archivedMessage`), with `flag` true (`isDeleted`,
    /// `isEdited`) and `text`, by `sender` in `room` of `collection`.
    static func replacing(
        _ id: String,
        of replaced: String,
        txn: Int,
        text: String,
        flag: String,
        createdOn: Date,
        room: String,
        from sender: String,
        collection: String = "messages"
    ) throws -> DittoEvent {
        try D.event(
            """
            {"txnId":\(txn),"type":"documentChanged","collection":"\(collection)","change":{"method":"upsert",
            "oldValue":null,"newValue":{"_id":"\(id)","roomId":"\(room)","userId":"\(sender)","text":"\(text)",
            "createdOn":"\(Timestamp.rfc3339(createdOn))","archivedMessage":"\(replaced)","\(flag)":true}}}
            """
        )
    }

    /// A store where bob (token 1) subscribed to the public room `room-1` before alice's message `m-1`.
    static func storeWithMessage(_ kind: StoreKind) async throws -> any Store {
        let store = try await D.store(kind)
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"]))
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply(
            [
                try D.room("room-1", txn: 1, name: "Team"),
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.message("m-1", txn: 2, ageSeconds: 10),
            ],
            to: store
        )
        return store
    }

    @Test(arguments: StoreKind.allCases) func aStrangersDeleteChangesNothing(kind: StoreKind) async throws {
        let store = try await Self.storeWithMessage(kind)
        // Sent to bob's phone, so a delete would remove it.
        let jobs = try await G.claim(store, at: D.at)
        #expect(jobs.map(\.token) == [F.token(1)])
        try await store.complete(jobs.map { ($0.deliveryId, .sent) }, at: D.at)
        let counts = try await D.apply(
            [
                try Self.delete("d-1", of: "m-1", txn: 3, from: "mallory"),
                try Self.delete("d-2", of: "m-1", txn: 4, room: "room-2"),
                try Self.delete("d-3", of: "m-1", txn: 5, collection: "dm_messages"),
                try Self.delete("d-4", of: "m-1", txn: 6, room: "room-2", from: "mallory"),
            ],
            to: store
        )
        #expect(counts.outcomes["messages"] == [.ignored: 3] && counts.outcomes["dmMessages"] == [.ignored: 1])
        for id in ["d-1", "d-2", "d-3", "d-4"] {
            #expect(try await store.notificationId(appId: "app-a", messageId: id) == nil)
        }
        #expect(try await U.unread(store, "bob").total == 1)
        let (summary, _) = try await G.deliveries(store, messageId: "m-1")
        #expect(summary.counts == DeliveryCounts(sent: 1))
        // The author's delete still applies.
        let applied = try await D.apply([try Self.delete("d-5", of: "m-1", txn: 7)], to: store)
        #expect(applied.outcomes["messages"] == [.editOrDelete: 1])
        #expect(try await G.deliveries(store, messageId: "d-5").byToken.keys.map { $0 } == [F.token(1)])
        #expect(try await U.unread(store, "bob").total == 0)
    }

    /// A room the mirror does not hold has no known collection: its author's delete applies from any message
    /// collection, as its message did (and the room check, with a mirrored room, refuses it elsewhere).
    @Test(arguments: StoreKind.allCases) func anUnmirroredRoomTakesItsAuthorsDeleteFromAnyMessageCollection(
        kind: StoreKind
    ) async throws {
        let store = try await D.store(kind)
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply(
            [
                try D.user("bob", txn: 1, subscriptions: #"{"room-x":"\#(before)"}"#),
                try D.message("m-1", txn: 2, room: "room-x", ageSeconds: 10),
            ],
            to: store
        )
        try await Self.expectDeleteCancelsPendingM1(
            store,
            delete: try Self.delete("d-1", of: "m-1", txn: 3, room: "room-x", collection: "dm_messages"),
            countedUnder: "dmMessages"
        )
    }

    /// A DM room whose `messagesId` names a collection of its own reads its messages from there, so its
    /// author's delete written there applies (the room's collection, not the DM messages collection, is the
    /// one checked).
    @Test(arguments: StoreKind.allCases) func aDMRoomsOwnCollectionTakesItsAuthorsDelete(kind: StoreKind) async throws {
        let store = try await D.store(kind)
        try await D.apply(
            [
                try D.event(
                    #"""
                    {"txnId":1,"type":"documentChanged","collection":"dm_rooms","change":{"method":"upsert",
                    "oldValue":null,"newValue":{"_id":"dm-1","name":"Alice & Bob","participants":["alice","bob"],
                    "messagesId":"dm_1_messages"}}}
                    """#
                ),
                try D.message("m-1", txn: 2, room: "dm-1", collection: "dm_1_messages"),
            ],
            to: store
        )
        try await Self.expectDeleteCancelsPendingM1(
            store,
            delete: try Self.delete("d-1", of: "m-1", txn: 3, room: "dm-1", collection: "dm_1_messages"),
            countedUnder: "messages"
        )
    }

    /// Expects message `m-1`'s one delivery pending, applies `delete`, and expects it counted as an edit or
    /// delete of the `countedUnder` collection kind and the delivery cancelled.
    static func expectDeleteCancelsPendingM1(
        _ store: any Store,
        delete: DittoEvent,
        countedUnder kind: String
    ) async throws {
        #expect(try await G.deliveries(store, messageId: "m-1").summary.counts == DeliveryCounts(pending: 1))
        let applied = try await D.apply([delete], to: store)
        #expect(applied.outcomes[kind] == [.editOrDelete: 1])
        #expect(try await G.deliveries(store, messageId: "m-1").summary.counts == DeliveryCounts(cancelled: 1))
    }

    @Test(arguments: StoreKind.allCases) func aStrangersDeleteCancelsNoPendingPushAndBlocksNoLaterMessage(
        kind: StoreKind
    ) async throws {
        let store = try await Self.storeWithMessage(kind)
        try await D.apply(
            [
                try Self.delete("d-1", of: "m-1", txn: 3, from: "mallory"),
                // A stranger's delete that comes before its message.
                try Self.delete("d-2", of: "m-2", txn: 4, from: "mallory"),
                try D.message("m-2", txn: 5, ageSeconds: 5),
            ],
            to: store
        )
        #expect(try await G.deliveries(store, messageId: "m-1").summary.counts == DeliveryCounts(pending: 1))
        #expect(try await G.deliveries(store, messageId: "m-2").summary.counts == DeliveryCounts(pending: 1))
        #expect(try await U.unread(store, "bob").total == 2)
    }

    @Test(arguments: StoreKind.allCases) func onlyTheFirstDeleteOfAMessageSendsRemovals(kind: StoreKind) async throws {
        let store = try await Self.storeWithMessage(kind)
        let jobs = try await G.claim(store, at: D.at)
        try await store.complete(jobs.map { ($0.deliveryId, .sent) }, at: D.at)
        try await D.apply([try Self.delete("d-1", of: "m-1", txn: 3)], to: store)
        // Another delete document of the same message, and a replay of the first.
        try await D.apply(
            [try Self.delete("d-2", of: "m-1", txn: 4), try Self.delete("d-1", of: "m-1", txn: 3)],
            to: store
        )
        #expect(try await store.notificationId(appId: "app-a", messageId: "d-2") == nil)
        let removals = try await G.claim(store, at: D.at.addingTimeInterval(1))
        #expect(removals.count == 1 && removals[0].content.message.removedMessageId == "m-1")
        let (_, records) = try await G.deliveries(store, messageId: "m-1")
        #expect(records[F.token(1)]?.status == .sent && records[F.token(1)]?.lastReason == "deleted")
    }

    @Test(arguments: StoreKind.allCases) func anEditTakesItsOriginalsTime(kind: StoreKind) async throws {
        let store = try await Self.storeWithMessage(kind)
        try await D.apply([try D.message("m-0", txn: 3, ageSeconds: 150)], to: store)
        #expect(try await U.unread(store, "bob").total == 1)
        // m-1 (after bob's read) edited with an earlier createdOn, m-0 (before it) with a later one.
        try await D.apply(
            [
                try U.dittoMessage("m-1", txn: 4, ageSeconds: 10, extra: #","isArchived":true"#),
                try U.dittoMessage("e-1", txn: 5, ageSeconds: 200, extra: #","archivedMessage":"m-1","isEdited":true"#),
                try U.dittoMessage("m-0", txn: 6, ageSeconds: 150, extra: #","isArchived":true"#),
                try U.dittoMessage("e-0", txn: 7, ageSeconds: 5, extra: #","archivedMessage":"m-0","isEdited":true"#),
            ],
            to: store
        )
        #expect(try await U.unread(store, "bob").total == 1)
    }
}
