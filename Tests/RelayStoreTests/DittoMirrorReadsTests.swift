import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// The Ditto mirror's reads on every engine (a room, its members by page, membership) and the purge of
/// tombstones by age.
@Suite struct DittoMirrorReadsTests {
    typealias F = StoreFixtures
    typealias M = DittoMirrorTests

    /// A public room with subscribers bob, dave and erin (erin's date unreadable: still set), carol's
    /// subscription null (not a member), and a DM room of frank and alice.
    static func mirror(_ kind: StoreKind) async throws -> any Store {
        let store = try await kind.makeStore()
        let read = #""2020-01-01T00:00:00Z""#
        try await M.apply(
            [
                try M.room("room-1", txn: 1, name: "Team"),
                try M.room(
                    "dm-1",
                    txn: 1,
                    name: "Alice & Frank",
                    collection: "dm_rooms",
                    participants: ["frank", "alice"]
                ),
                try M.user("bob", txn: 1, subscriptions: "{\"room-1\":\(read),\"room-2\":\(read)}"),
                try M.user("carol", txn: 1, subscriptions: #"{"room-1":null}"#),
                try M.user("dave", txn: 1, subscriptions: "{\"room-1\":\(read)}"),
                try M.user("erin", txn: 1, subscriptions: #"{"room-1":"yesterday"}"#),
            ],
            to: store
        )
        return store
    }

    @Test(arguments: StoreKind.allCases) func aRoomReadsWithItsNameAndKind(kind: StoreKind) async throws {
        let store = try await Self.mirror(kind)
        let team = try #require(try await store.dittoRoom(appId: "app-a", roomId: "room-1"))
        #expect(team.document.name == "Team" && !team.isDirect)
        let dm = try #require(try await store.dittoRoom(appId: "app-a", roomId: "dm-1"))
        #expect(dm.document.name == "Alice & Frank" && dm.isDirect)
        #expect(dm.document.participants == ["frank", "alice"])
        #expect(try await store.dittoRoom(appId: "app-a", roomId: "room-2") == nil)
        #expect(try await store.dittoRoom(appId: "app-b", roomId: "room-1") == nil)
    }

    @Test(arguments: StoreKind.allCases) func membersAreSubscribersOrParticipantsByPage(kind: StoreKind) async throws {
        let store = try await Self.mirror(kind)
        func page(_ room: String, _ offset: Int, _ limit: Int) async throws -> [String] {
            try await store.dittoMembers(appId: "app-a", roomId: room, offset: offset, limit: limit)
        }
        #expect(try await page("room-1", 0, 2) == ["bob", "dave"])
        #expect(try await page("room-1", 2, 2) == ["erin"])
        #expect(try await page("room-1", 3, 2) == [])
        #expect(try await page("dm-1", 0, 10) == ["alice", "frank"])
        #expect(try await page("dm-1", 1, 1) == ["frank"])
        // A room the mirror does not hold yet has its subscribers (as the message rule reaches them).
        #expect(try await page("room-2", 0, 10) == ["bob"])
        #expect(try await page("room-3", 0, 10) == [])
        for (room, user, member) in [
            ("room-1", "bob", true), ("room-1", "erin", true), ("room-1", "carol", false), ("room-1", "frank", false),
            ("dm-1", "alice", true), ("dm-1", "bob", false), ("room-2", "bob", true),
        ] {
            #expect(
                try await store.isDittoMember(appId: "app-a", roomId: room, userId: user) == member,
                "\(room) \(user)"
            )
        }
        // A user document without the subscription leaves the room; a removed user is no member.
        try await M.apply([try M.user("bob", txn: 2), try M.removeUser("dave", txn: 2)], to: store)
        #expect(try await page("room-1", 0, 10) == ["erin"])
        #expect(try await store.isDittoMember(appId: "app-a", roomId: "room-1", userId: "bob") == false)
    }

    /// Removes `ids` (users) of `app` at `at`, each with txnId `txn`.
    static func remove(_ ids: [String], txn: Int, app: String = "app-a", at: Date, in store: any Store) async throws {
        _ = try await store.applyDittoEvents(
            try ids.map { try M.removeUser($0, txn: txn) },
            appId: app,
            settings: M.settings,
            at: at
        )
    }

    @Test(arguments: StoreKind.allCases) func tombstonesOlderThanTheBoundGoInBatchesThenAReplayAppliesAgain(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        let hour: TimeInterval = 3600
        try await M.apply(
            try ["bob", "carol", "dave", "erin", "frank"].map { try M.user($0, txn: 5) },
            to: store
        )
        try await Self.remove(["bob", "carol", "dave"], txn: 7, at: F.t0, in: store)
        try await Self.remove(["erin"], txn: 7, at: F.t0 + 2 * hour, in: store)
        try await Self.remove(["bob"], txn: 7, app: "app-b", at: F.t0, in: store)
        // frank is removed, then comes back with a higher txnId: a live document again, never purged.
        try await Self.remove(["frank"], txn: 7, at: F.t0, in: store)
        try await M.apply([try M.user("frank", txn: 8)], to: store)
        #expect(try await F.count("ditto_documents", in: store) == 6)

        let cutoff = F.t0 + hour
        #expect(try await store.purgeDittoTombstones(appId: "app-a", removedBefore: cutoff, limit: 2) == 2)
        #expect(try await store.purgeDittoTombstones(appId: "app-a", removedBefore: cutoff, limit: 2) == 1)
        #expect(try await store.purgeDittoTombstones(appId: "app-a", removedBefore: cutoff, limit: 2) == 0)
        // erin's (newer) and app-b's tombstones and frank's live document stay.
        #expect(try await F.count("ditto_documents", in: store) == 3)

        // Past the bound an older replayed upsert is applied as if new; within it, the tombstone holds.
        var counts = try await M.apply([try M.user("bob", txn: 5)], to: store)
        #expect(counts.applied == 1)
        counts = try await M.apply([try M.user("erin", txn: 5)], to: store)
        #expect(counts.applied == 0 && counts.ignored == 1)
        counts = try await store.applyDittoEvents(
            [try M.user("bob", txn: 5)],
            appId: "app-b",
            settings: M.settings,
            at: F.t0
        )
        #expect(counts.ignored == 1)
    }

    /// A tombstone written before its time was kept (a remove's before version 17, a requery sweep's before
    /// 26) counts from the migration that gives it one.
    @Test(arguments: [
        (
            16,
            """
            INSERT INTO ditto_documents (app_id, collection, doc_id, txn_id, removed)
            VALUES ('app-a', 'users', 'bob', 7, 1), ('app-a', 'users', 'carol', 5, 0);
            """
        ),
        (
            25,
            """
            INSERT INTO ditto_documents (app_id, collection, doc_id, txn_id, removed, removed_at)
            VALUES ('app-a', 'users', 'bob', 7, 1, NULL), ('app-a', 'users', 'carol', 5, 0, NULL);
            """
        ),
    ])
    func aTombstoneWithoutItsTimeCountsFromTheMigration(version: Int, rows: String) async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v\(version).sqlite").path
            try FeedbackStoreTests.oldDatabase(at: path, version: version, rows: rows)
            let store = try SQLiteStore(path: path, logger: .disabled())
            #expect(store.schemaVersion == SQLiteMigrations.steps.count)
            let now = Date()
            #expect(try await store.purgeDittoTombstones(appId: "app-a", removedBefore: now - 3600, limit: 10) == 0)
            #expect(try await store.purgeDittoTombstones(appId: "app-a", removedBefore: now + 3600, limit: 10) == 1)
            #expect(try await F.count("ditto_documents", in: store) == 1)
        }
    }
}
