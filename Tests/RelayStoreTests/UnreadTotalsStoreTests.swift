import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// The cached unread totals on every engine: after each change (messages, reads, archives, deletes, levels,
/// joins and leaves, devices, retention) a user with a live device has a row equal to the recount that
/// `GET /v1/users/{id}/unread` gives, a user without one has none, and a claim badges with it.
@Suite struct UnreadTotalsStoreTests {
    typealias F = StoreFixtures
    typealias D = DittoMirrorTests
    typealias U = UnreadStoreTests

    /// The cached totals of app-a by user.
    static func cached(_ store: any Store) async throws -> [String: Int] {
        switch store {
        case let sqlite as SQLiteStore:
            return try await sqlite.withConnection { db in
                try db.withStatement("SELECT user_id, total FROM unread_totals WHERE app_id = 'app-a'") { row in
                    var totals: [String: Int] = [:]
                    while try row.step() { totals[row.string(0)] = row.int(1) }
                    return totals
                }
            }
        case let postgres as PostgresStore:
            return try await postgres.cachedTotals()
        default:
            preconditionFailure("no cache for \(type(of: store))")
        }
    }

    /// Expects each of `users` with a device to have its recount cached, and the others no row.
    static func expectCacheMatches(
        _ store: any Store,
        devices: Set<String>,
        users: [String],
        _ step: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let cached = try await Self.cached(store)
        var counted: [String: Int] = [:]
        for user in users where devices.contains(user) { counted[user] = try await U.unread(store, user).total }
        #expect(cached == counted, "after \(step)", sourceLocation: sourceLocation)
    }

    @Test(arguments: StoreKind.allCases) func webhookChangesKeepTheCacheEqualToTheRecount(kind: StoreKind) async throws
    {
        let store = try await kind.makeStore()
        await store.setUnreadPolicy(UnreadPolicy(badgeAppIds: ["app-a"]))
        let users = ["alice", "bob", "carol", "dave"]
        var devices: Set<String> = ["alice", "bob", "carol"]
        func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await Self.expectCacheMatches(
                store,
                devices: devices,
                users: users,
                step,
                sourceLocation: sourceLocation
            )
        }
        try await store.register(F.token(1), user: "alice", rooms: ["room-1", "room-2"])
        try await store.register(F.token(2), user: "bob", rooms: ["room-1", "room-2"])
        try await store.register(F.token(3), user: "carol", rooms: ["room-1"])
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "dave", at: F.t0)
        try await check("devices")
        for (second, sender, room) in [(1.0, "alice", "room-1"), (2, "bob", "room-1"), (3, "dave", "room-2")] {
            try await U.post(store, from: sender, room: room, at: second)
        }
        try await check("messages")
        // A claim badges each recipient with its cached total.
        let jobs = try await store.claimDueDeliveries(now: F.time(3), limit: 20, leaseSeconds: 30, owner: F.owner)
        let badges = Dictionary(jobs.map { ($0.token, $0.badge ?? -1) }, uniquingKeysWith: { $1 })
        let cached = try await Self.cached(store)
        #expect(badges == [F.token(1): cached["alice"], F.token(2): cached["bob"], F.token(3): cached["carol"]])
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "bob", at: F.time(1.5))
        try await check("a read")
        // Muting room-2 (dave's message) and leaving room-1 (alice's and bob's) lower the totals.
        #expect(try await Self.cached(store)["alice"] == 2)
        try await store.setRoomLevel(appId: "app-a", roomId: "room-2", userId: "alice", .set(.none), scope: .members)
        try await check("a room level")
        #expect(try await Self.cached(store)["alice"] == 1)
        try await store.setUserLevel(appId: "app-a", userId: "bob", NotifyLevel.none)
        try await check("a default level")
        try await store.setUserLevel(appId: "app-a", userId: "bob", nil)
        try await store.addMember(appId: "app-a", roomId: "room-2", userId: "carol", at: F.t0)
        try await check("a join")
        #expect(try await Self.cached(store)["carol"] == 3)
        _ = try await store.removeMember(appId: "app-a", roomId: "room-1", userId: "carol")
        try await check("a leave")
        #expect(try await Self.cached(store)["carol"] == 1)
        try await store.addMember(
            appId: "app-a",
            roomId: "room-1",
            userId: "carol",
            notify: nil,
            origin: .user,
            at: F.time(0.5)
        )
        try await check("a user's own join")
        try await store.setRoomMembership(appId: "app-a", roomId: "room-1", membership: .closed, at: F.time(4))
        try await check("a closed room")
        try await store.register(F.token(4), user: "dave", rooms: ["room-1"], at: F.time(4))
        devices.insert("dave")
        try await check("a first device")
        try await U.post(store, from: "carol", room: "room-2", at: 5)
        try await check("another message")
        #expect(try await store.deleteDevice(appId: "app-a", token: F.token(2)))
        devices.remove("bob")
        try await check("a last device deleted")
        // A token moving to another user takes its old user's row with it.
        try await store.register(F.token(3), user: "bob", rooms: [], at: F.time(6))
        devices = ["alice", "bob", "dave"]
        try await check("a device moving")
        #expect(try await store.deleteIndexedMessages(before: F.time(2.5), limit: 10) == 2)
        try await check("the retention purge")
    }

    /// A retention run on a relay that keeps no totals for an app (another relay's badge app) cannot take
    /// the deleted messages from them: it drops the totals of the purged rooms' users, whom a claim then
    /// recounts, and leaves the rest. No cached total is left above its recount.
    @Test(arguments: StoreKind.allCases) func aRetentionRunWithoutTheAppsBadgesDropsTheRoomsTotals(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        let badges = UnreadPolicy(badgeAppIds: ["app-a"])
        await store.setUnreadPolicy(badges)
        try await store.register(F.token(1), user: "alice", rooms: ["room-1"])
        try await store.register(F.token(2), user: "bob", rooms: ["room-1"])
        try await store.register(F.token(3), user: "carol", rooms: ["room-2"])
        try await store.register(F.token(4), user: "dave", rooms: ["room-1"])
        for (second, room) in [(1.0, "room-1"), (2, "room-1"), (3, "room-2")] {
            try await U.post(store, from: "alice", room: room, at: second)
        }
        // dave read room-1 past the message retention takes: his total never counted it.
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "dave", at: F.time(1.2))
        #expect(try await Self.cached(store) == ["alice": 0, "bob": 2, "carol": 1, "dave": 1])
        await store.setUnreadPolicy(.none)
        #expect(try await store.deleteIndexedMessages(before: F.time(1.5), limit: 10) == 1)
        #expect(
            try await Self.cached(store) == ["carol": 1, "dave": 1],
            "room-1's users who read before the purge dropped; dave and room-2's users kept"
        )
        await store.setUnreadPolicy(badges)
        let jobs = try await store.claimDueDeliveries(now: F.time(3), limit: 20, leaseSeconds: 30, owner: F.owner)
        let badgesByToken = Dictionary(jobs.map { ($0.token, $0.badge ?? -1) }, uniquingKeysWith: { $1 })
        #expect(badgesByToken == [F.token(2): 1, F.token(3): 1, F.token(4): 1])
        try await Self.expectCacheMatches(
            store,
            devices: ["alice", "bob", "carol", "dave"],
            users: ["bob", "carol", "dave"],
            "the claim's recount"
        )
    }

    /// An app without badges keeps no cached totals: its messages and devices write none, the rows an
    /// earlier policy with badges left are deleted at the next start, and with badges again each recipient
    /// is recounted when a claim needs its total, so no badge comes from a row left behind.
    @Test(arguments: StoreKind.allCases) func anAppWithoutBadgesKeepsNoTotals(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let badges = UnreadPolicy(badgeAppIds: ["app-a"])
        await store.setUnreadPolicy(badges)
        try await store.register(F.token(1), user: "alice", rooms: ["room-1"])
        try await store.register(F.token(2), user: "bob", rooms: ["room-1"])
        try await U.post(store, from: "alice", at: 1)
        #expect(try await Self.cached(store) == ["alice": 0, "bob": 1])
        await store.setUnreadPolicy(.none)
        try await store.register(F.token(3), user: "carol", rooms: ["room-1"])
        try await U.post(store, from: "alice", at: 2)
        try await U.post(store, from: "carol", at: 3)
        #expect(try await Self.cached(store) == ["alice": 0, "bob": 1], "no row written without badges")
        try await store.dropUnreadTotalsNotKept()
        #expect(try await Self.cached(store).isEmpty)
        await store.setUnreadPolicy(badges)
        try await store.dropUnreadTotalsNotKept()
        let jobs = try await store.claimDueDeliveries(now: F.time(3), limit: 20, leaseSeconds: 30, owner: F.owner)
        let badgeOf = Dictionary(jobs.map { ($0.token, $0.badge ?? -1) }, uniquingKeysWith: { $1 })
        #expect(badgeOf == [F.token(1): 1, F.token(2): 3, F.token(3): 2])
        try await Self.expectCacheMatches(
            store,
            devices: ["alice", "bob", "carol"],
            users: ["alice", "bob", "carol"],
            "badges again"
        )
        try await store.dropUnreadTotalsNotKept()
        #expect(try await Self.cached(store) == ["alice": 1, "bob": 3, "carol": 2], "a badge app's rows stay")
    }

    @Test(arguments: StoreKind.allCases) func dittoChangesKeepTheCacheEqualToTheRecount(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"], badgeAppIds: ["app-a"]))
        let users = ["alice", "bob", "carol"]
        let devices: Set<String> = ["alice", "bob"]
        func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await Self.expectCacheMatches(
                store,
                devices: devices,
                users: users,
                step,
                sourceLocation: sourceLocation
            )
        }
        try await store.register(F.token(1), user: "alice", rooms: [])
        try await store.register(F.token(2), user: "bob", rooms: [])
        let read = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply(
            [
                try D.user("alice", txn: 1, subscriptions: #"{"room-1":"\#(read)"}"#),
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(read)","room-2":"\#(read)"}"#),
                try D.user("carol", txn: 1, subscriptions: #"{"room-1":"\#(read)"}"#),
            ],
            to: store
        )
        try await check("subscriptions")
        try await D.apply(
            [
                try U.dittoMessage("m-1", txn: 2, from: "alice", ageSeconds: 50),
                try U.dittoMessage("m-2", txn: 3, from: "carol", ageSeconds: 40),
                try U.dittoMessage("m-3", txn: 4, room: "room-2", from: "carol", ageSeconds: 30),
                try U.dittoMessage("m-4", txn: 5, from: "carol", ageSeconds: 200),  // before the read dates
            ],
            to: store
        )
        try await check("messages")
        try await D.apply(
            [try U.dittoMessage("m-2", txn: 6, from: "carol", ageSeconds: 40, extra: #","isArchived":true"#)],
            to: store
        )
        try await check("an archive")
        try await D.apply([try U.dittoMessage("m-2", txn: 7, from: "carol", ageSeconds: 40)], to: store)
        try await check("an upsert that does not unarchive")
        try await D.apply([try GraceWindowStoreTests.delete("m-5", of: "m-1", txn: 8)], to: store)
        try await check("a delete")
        try await D.apply([try GraceWindowStoreTests.delete("m-6", of: "m-9", txn: 9)], to: store)
        try await D.apply([try U.dittoMessage("m-9", txn: 10, from: "carol", ageSeconds: 20)], to: store)
        try await check("a message whose delete came first")
        let counted = try await Self.cached(store)
        #expect(counted == ["alice": 1, "bob": 2])
        // Bob deleting carol's m-9 changes nothing.
        try await D.apply([try DeleteAuthorTests.delete("d-1", of: "m-9", txn: 11, from: "bob")], to: store)
        try await check("a stranger's delete")
        #expect(try await Self.cached(store) == counted)
        // Carol's edit of m-9 with a createdOn before every read date takes m-9's time: the count holds.
        try await D.apply(
            [
                try U.dittoMessage("m-9", txn: 12, from: "carol", ageSeconds: 20, extra: #","isArchived":true"#),
                try U.dittoMessage(
                    "e-9",
                    txn: 13,
                    from: "carol",
                    ageSeconds: 200,
                    extra: #","archivedMessage":"m-9","isEdited":true"#
                ),
            ],
            to: store
        )
        try await check("an edit with an earlier createdOn")
        #expect(try await Self.cached(store) == counted)
        // Bob's delete of m-10 arrives first (an archived row of his); carol's m-10 takes the row over.
        try await D.apply([try DeleteAuthorTests.delete("d-2", of: "m-10", txn: 14, from: "bob")], to: store)
        try await D.apply([try U.dittoMessage("m-10", txn: 15, from: "carol", ageSeconds: 15)], to: store)
        try await check("a message taking over a stranger's delete")
        #expect(try await Self.cached(store) == ["alice": 2, "bob": 3])
        let now = Timestamp.rfc3339(D.at)
        try await D.apply(
            [try D.user("bob", txn: 16, subscriptions: #"{"room-1":"\#(now)","room-2":"\#(read)"}"#)],
            to: store
        )
        try await check("a read")
        try await store.setRoomLevel(
            appId: "app-a",
            roomId: "room-2",
            userId: "bob",
            .set(.none),
            scope: .anyRoom(atMost: nil)
        )
        try await check("a level")
        try await D.apply([try D.removeUser("alice", txn: 17)], to: store)
        try await check("a user document removed")
        // The same rows read under a policy without Ditto are another source's: recounted, never read.
        await store.setUnreadPolicy(UnreadPolicy(badgeAppIds: ["app-a"]))
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "bob", at: F.t0)
        try await U.post(store, from: "carol", at: 1)
        let jobs = try await store.claimDueDeliveries(now: F.time(1), limit: 20, leaseSeconds: 30, owner: F.owner)
        let alices = try await U.unread(store, "alice").total
        let bobs = try await U.unread(store, "bob").total
        #expect(bobs == 1 && jobs.contains { $0.token == F.token(2) })
        #expect(jobs.allSatisfy { $0.badge == ($0.token == F.token(2) ? bobs : alices) })
        try await check("a policy change")
    }
}

extension PostgresStore {
    /// The cached totals of app-a by user (tests).
    func cachedTotals() throws -> [String: Int] {
        let rows = try db.query("SELECT user_id, total FROM unread_totals WHERE app_id = 'app-a'")
        return Dictionary(uniqueKeysWithValues: try rows.all.map { ($0.string(0), try $0.int(1)) })
    }
}
