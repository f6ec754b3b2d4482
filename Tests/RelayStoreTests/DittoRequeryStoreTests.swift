import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// `requeryRequired` in the store on every engine: the pending requery (highest txnId kept), its lease, a
/// re-read's pages and sweep, and the completion that a later requery keeps open.
@Suite struct DittoRequeryStoreTests {
    typealias M = DittoMirrorTests
    typealias F = StoreFixtures

    static func requery(txn: Int) throws -> DittoEvent {
        try M.event(#"{"txnId":\#(txn),"type":"requeryRequired"}"#)
    }

    /// `document` applied as a re-read page applies it: an upsert at the requery's txnId.
    static func page(_ collection: String, txn: UInt64, _ documents: [DittoDocument]) -> [DittoEvent] {
        documents.map {
            DittoEvent(txnId: txn, kind: .documentChanged, collection: collection, change: .upsert(old: nil, new: $0))
        }
    }

    static func user(_ id: String, subscribedTo room: String) -> DittoDocument {
        DittoDocument(
            id: id,
            fields: ["_id": .string(id), "subscriptions": .object([room: .string("2020-01-01T00:00:00Z")])]
        )
    }

    @Test(arguments: StoreKind.allCases) func aRequeryIsPendingWithItsHighestTxnIdAndCountedOnce(
        kind: StoreKind
    ) async throws {
        let store = try await M.store(kind)
        #expect(try await store.pendingDittoRequeries().isEmpty)
        var counts = try await M.apply([try Self.requery(txn: 9), try Self.requery(txn: 8)], to: store)
        #expect(counts.requeries == 1 && counts.requeryTxnId == 9)
        #expect(counts.applied == 1 && counts.duplicates == 1)
        #expect(try await store.pendingDittoRequeries() == ["app-a": 9])
        counts = try await M.apply([try Self.requery(txn: 9)], to: store)
        #expect(counts.requeries == 0 && counts.duplicates == 1)
        counts = try await M.apply([try Self.requery(txn: 12)], to: store)
        #expect(counts.requeries == 1 && counts.requeryTxnId == 12)
        #expect(try await store.pendingDittoRequeries() == ["app-a": 12])
    }

    /// A first requery at txnId 0 is pending like any other, until completed; the same one again is not.
    @Test(arguments: StoreKind.allCases) func aRequeryAtTxnIdZeroIsPending(kind: StoreKind) async throws {
        let store = try await M.store(kind)
        let counts = try await M.apply([try Self.requery(txn: 0)], to: store)
        #expect(counts.requeries == 1 && counts.requeryTxnId == 0)
        #expect(try await store.pendingDittoRequeries() == ["app-a": 0])
        #expect(try await store.completeDittoRequery(appId: "app-a", txnId: 0, owner: nil) == nil)
        #expect(try await store.pendingDittoRequeries().isEmpty)
        #expect(try await M.apply([try Self.requery(txn: 0)], to: store).requeries == 0)
    }

    @Test(arguments: StoreKind.allCases) func oneRelayHoldsTheLeaseUntilItRunsOut(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        let one = try database.open()
        let two = try database.open()
        let now = F.t0
        #expect(try await one.claimDittoRequery(appId: "app-a", owner: "one", now: now, leaseSeconds: 60) == nil)
        _ = try await one.applyDittoEvents([try Self.requery(txn: 5)], appId: "app-a", settings: M.settings, at: now)
        #expect(try await one.claimDittoRequery(appId: "app-a", owner: "one", now: now, leaseSeconds: 60) == 5)
        #expect(try await two.claimDittoRequery(appId: "app-a", owner: "two", now: now, leaseSeconds: 60) == nil)
        let renewed = now.addingTimeInterval(30)
        #expect(try await one.claimDittoRequery(appId: "app-a", owner: "one", now: renewed, leaseSeconds: 60) == 5)
        let early = now.addingTimeInterval(61)
        #expect(try await two.claimDittoRequery(appId: "app-a", owner: "two", now: early, leaseSeconds: 60) == nil)
        let late = renewed.addingTimeInterval(61)
        #expect(try await two.claimDittoRequery(appId: "app-a", owner: "two", now: late, leaseSeconds: 60) == 5)
        // The old holder completes nothing once the lease moved.
        #expect(try await one.completeDittoRequery(appId: "app-a", txnId: 5, owner: "one") == 5)
        #expect(try await two.completeDittoRequery(appId: "app-a", txnId: 5, owner: "two") == nil)
        #expect(try await one.pendingDittoRequeries().isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func aReReadKeepsLaterChangesAndRemovesWhatItDidNotFind(
        kind: StoreKind
    ) async throws {
        let store = try await M.store(kind)
        let subscribed = #"{"room-1":"2020-01-01T00:00:00Z"}"#
        try await M.apply(
            [
                try M.room("room-1", txn: 1, name: "Team"),
                try M.room("room-gone", txn: 2, name: "Gone"),
                try M.user("bob", txn: 3, subscriptions: subscribed),
                try M.user("carol", txn: 4, subscriptions: subscribed),
                try M.user("dave", txn: 20, subscriptions: subscribed),
                try Self.requery(txn: 10),
            ],
            to: store
        )
        // The re-read at txnId 10 finds room-1, bob, a new erin, and dave as it was before txnId 20.
        let room = DittoDocument(id: "room-1", fields: ["_id": .string("room-1"), "name": .string("Team")])
        var counts = try await M.apply(Self.page("rooms", txn: 10, [room]), to: store)
        #expect(counts.applied == 1 && counts.notifications == 0)
        counts = try await M.apply(
            Self.page(
                "users",
                txn: 10,
                [
                    Self.user("bob", subscribedTo: "room-1"), Self.user("dave", subscribedTo: "room-other"),
                    Self.user("erin", subscribedTo: "room-1"),
                ]
            ),
            to: store
        )
        #expect(counts.applied == 2 && counts.ignored == 1 && counts.notifications == 0)
        var removed = 0
        for collection in ["rooms", "dm_rooms", "users"] {
            removed += try await store.sweepDittoCollection(collection, below: 10, appId: "app-a", settings: M.settings)
        }
        #expect(removed == 2)
        // An older replayed upsert cannot bring carol back; a later change still applies.
        counts = try await M.apply([try M.user("carol", txn: 9, subscriptions: subscribed)], to: store)
        #expect(counts.ignored == 1)
        try await M.apply([try M.message("m-1", txn: 30)], to: store)
        #expect(try await M.recipients(of: "m-1", in: store, users: M.people) == ["bob", "dave", "erin"])
        #expect(try await F.count("ditto_rooms", in: store) == 1)

        #expect(try await store.pendingDittoRequeries() == ["app-a": 10])
        #expect(try await store.completeDittoRequery(appId: "app-a", txnId: 10, owner: nil) == nil)
        #expect(try await store.pendingDittoRequeries().isEmpty)
        // The sweep's tombstones (room-gone, carol) are purged once kept long enough, as a remove's are.
        let now = Date()
        #expect(try await store.purgeDittoTombstones(appId: "app-a", removedBefore: now - 3600, limit: 10) == 0)
        #expect(try await store.purgeDittoTombstones(appId: "app-a", removedBefore: now + 3600, limit: 10) == 2)
    }

    @Test(arguments: StoreKind.allCases) func aLaterRequeryDuringTheReReadKeepsItPending(kind: StoreKind) async throws {
        let store = try await M.store(kind)
        try await M.apply([try Self.requery(txn: 10)], to: store)
        #expect(try await store.claimDittoRequery(appId: "app-a", owner: "one", now: F.t0, leaseSeconds: 60) == 10)
        try await M.apply([try Self.requery(txn: 15)], to: store)
        #expect(try await store.completeDittoRequery(appId: "app-a", txnId: 10, owner: "one") == 15)
        #expect(try await store.pendingDittoRequeries() == ["app-a": 15])
        // An operator's clear takes whatever is pending.
        #expect(try await store.completeDittoRequery(appId: "app-a", txnId: nil, owner: nil) == nil)
        #expect(try await store.pendingDittoRequeries().isEmpty)
        try await M.apply([try Self.requery(txn: 15)], to: store)
        #expect(try await store.pendingDittoRequeries().isEmpty)
    }
}
