import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// Unread counts on every engine: the per-room message index written by webhooks and Ditto messages, read
/// positions (members' forward-only markers, Ditto subscriptions), and the badge a claim renders.
@Suite struct UnreadStoreTests {
    typealias F = StoreFixtures
    typealias D = DittoMirrorTests

    /// A webhook message of `sender` in `room` accepted `seconds` after t0.
    static func post(
        _ store: any Store,
        from sender: String,
        room: String = "room-1",
        at seconds: Double
    )
        async throws
    {
        let outcome = try await store.createNotification(
            F.notification(room: room, sender: sender, at: F.time(seconds)),
            recipients: RecipientSelection(roomId: room, excludeUserId: sender)
        )
        guard case .created = outcome else { throw StoreError(code: .notFound, message: "not created: \(outcome)") }
    }

    static func unread(_ store: any Store, _ user: String, limit: Int = 100) async throws -> UnreadCounts {
        try await store.unreadCounts(appId: "app-a", userId: user, roomLimit: limit)
    }

    @Test(arguments: StoreKind.allCases) func webhookMessagesCountFromEachMembersJoinAndReadPosition(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice", rooms: ["room-1", "room-2"])
        try await store.register(F.token(2), user: "bob", rooms: ["room-1", "room-2"])
        try await Self.post(store, from: "alice", at: 1)
        try await Self.post(store, from: "alice", at: 2)
        try await Self.post(store, from: "bob", at: 3)
        try await Self.post(store, from: "alice", room: "room-2", at: 4)
        #expect(try await Self.unread(store, "bob") == UnreadCounts(total: 3, rooms: ["room-1": 2, "room-2": 1]))
        // Own messages never count.
        #expect(try await Self.unread(store, "alice") == UnreadCounts(total: 1, rooms: ["room-1": 1]))
        // A member who joins later counts from its join.
        try await store.register(F.token(3), user: "carol", rooms: ["room-1"], at: F.time(2.5))
        #expect(try await Self.unread(store, "carol") == UnreadCounts(total: 1, rooms: ["room-1": 1]))
        // A non-member has nothing, and marks nothing.
        #expect(try await Self.unread(store, "dave") == UnreadCounts())
        #expect(try await store.markRead(appId: "app-a", roomId: "room-1", userId: "dave", at: F.time(9)) == nil)
        // The cap keeps the most unread rooms; the total counts them all.
        #expect(try await Self.unread(store, "bob", limit: 1) == UnreadCounts(total: 3, rooms: ["room-1": 2]))
    }

    @Test(arguments: StoreKind.allCases) func aReadPositionOnlyMovesForward(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice")
        try await store.register(F.token(2), user: "bob")
        for second in 1...3 { try await Self.post(store, from: "alice", at: Double(second)) }
        var position = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "bob", at: F.time(2))
        #expect(position == F.time(2))
        #expect(try await Self.unread(store, "bob").total == 1)
        position = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "bob", at: F.time(1))
        #expect(position == F.time(2))
        #expect(try await Self.unread(store, "bob").total == 1)
        position = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "bob", at: F.time(3))
        #expect(position == F.time(3))
        #expect(try await Self.unread(store, "bob") == UnreadCounts())
        // Another user's position is its own.
        #expect(try await Self.unread(store, "alice") == UnreadCounts())
        try await Self.post(store, from: "bob", at: 4)
        #expect(try await Self.unread(store, "alice").total == 1)
    }

    @Test(arguments: StoreKind.allCases) func aRoomAtLevelNoneDoesNotCount(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice", rooms: ["room-1", "room-2", "room-3"])
        try await store.register(F.token(2), user: "bob", rooms: ["room-1", "room-2", "room-3"])
        try await Self.post(store, from: "alice", at: 1)
        try await Self.post(store, from: "alice", room: "room-2", at: 2)
        try await Self.post(store, from: "alice", room: "room-3", at: 3)
        try await store.setRoomLevel(appId: "app-a", roomId: "room-2", userId: "bob", .set(.none), scope: .members)
        try await store.setRoomLevel(
            appId: "app-a",
            roomId: "room-3",
            userId: "bob",
            .set(.mentions),
            scope: .members
        )
        #expect(try await Self.unread(store, "bob") == UnreadCounts(total: 2, rooms: ["room-1": 1, "room-3": 1]))
        // A default of none takes every room without a level of its own out.
        try await store.setUserLevel(appId: "app-a", userId: "bob", NotifyLevel.none)
        #expect(try await Self.unread(store, "bob") == UnreadCounts(total: 1, rooms: ["room-3": 1]))
        try await store.setRoomLevel(appId: "app-a", roomId: "room-2", userId: "bob", .set(.all), scope: .members)
        #expect(try await Self.unread(store, "bob") == UnreadCounts(total: 2, rooms: ["room-2": 1, "room-3": 1]))
    }

    /// A message document of `room` from `sender` written `ageSeconds` before its arrival, with extra fields.
    static func dittoMessage(
        _ id: String,
        txn: Int,
        room: String = "room-1",
        from sender: String = "alice",
        ageSeconds: Double = 10,
        extra: String = ""
    ) throws -> DittoEvent {
        let created = Timestamp.rfc3339(D.at.addingTimeInterval(-ageSeconds))
        return try D.event(
            """
            {"txnId":\(txn),"type":"documentChanged","collection":"messages","change":{"method":"upsert",
            "oldValue":null,"newValue":{"_id":"\(id)","roomId":"\(room)","userId":"\(sender)","text":"hello",
            "createdOn":"\(created)"\(extra)}}}
            """
        )
    }

    @Test(arguments: StoreKind.allCases) func dittoMessagesCountAfterEachSubscriptionsDate(
        kind: StoreKind
    )
        async throws
    {
        let store = try await D.store(kind)
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"]))
        let read = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply(
            [
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(read)","room-2":null}"#),
                try D.user("alice", txn: 1, subscriptions: #"{"room-1":"\#(read)"}"#),
                try D.room("room-1", txn: 1, name: "Team"),
            ],
            to: store
        )
        try await D.apply(
            [
                try Self.dittoMessage("m-1", txn: 2, ageSeconds: 200),  // before bob's read date
                try Self.dittoMessage("m-2", txn: 3, ageSeconds: 50),
                try Self.dittoMessage("m-3", txn: 4, ageSeconds: 40),
                try Self.dittoMessage("m-4", txn: 5, from: "bob", ageSeconds: 30),  // bob's own
                try Self.dittoMessage("m-5", txn: 6, ageSeconds: 20, extra: #","isArchived":true"#),
                // A JS edit of m-3: the original archived, and a new document naming it, with its createdOn,
                // counting in its place.
                try Self.dittoMessage("m-3", txn: 7, ageSeconds: 40, extra: #","isArchived":true"#),
                try Self.dittoMessage(
                    "m-6",
                    txn: 7,
                    ageSeconds: 40,
                    extra: #","archivedMessage":"m-3","isEdited":true"#
                ),
                // room-2 has no read date (null): nothing counts there.
                try Self.dittoMessage("m-7", txn: 8, room: "room-2", ageSeconds: 10),
            ],
            to: store
        )
        #expect(try await Self.unread(store, "bob") == UnreadCounts(total: 2, rooms: ["room-1": 2]))
        #expect(try await Self.unread(store, "alice") == UnreadCounts(total: 1, rooms: ["room-1": 1]))
        // A later upsert archiving m-2 takes it out; one not archiving it again does not bring it back.
        try await D.apply(
            [try Self.dittoMessage("m-2", txn: 9, ageSeconds: 50, extra: #","isArchived":true"#)],
            to: store
        )
        try await D.apply([try Self.dittoMessage("m-2", txn: 8, ageSeconds: 50)], to: store)
        #expect(try await Self.unread(store, "bob") == UnreadCounts(total: 1, rooms: ["room-1": 1]))
        // Reading (Ditto moves subscriptions[room-1]) clears it.
        let now = Timestamp.rfc3339(D.at)
        try await D.apply([try D.user("bob", txn: 10, subscriptions: #"{"room-1":"\#(now)"}"#)], to: store)
        #expect(try await Self.unread(store, "bob") == UnreadCounts())
    }

    @Test(arguments: StoreKind.allCases) func dittoDatesInTheFutureAreClampedToTheirArrival(
        kind: StoreKind
    )
        async throws
    {
        let store = try await D.store(kind)
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"]))
        let future = Timestamp.rfc3339(D.at.addingTimeInterval(3600))
        try await D.apply([try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(future)"}"#)], to: store)
        // Written an hour ahead, arriving at D.at: the message counts from D.at, after bob's clamped read.
        _ = try await store.applyDittoEvents(
            [try Self.dittoMessage("m-1", txn: 2, ageSeconds: -3600)],
            appId: "app-a",
            settings: D.settings,
            at: D.at.addingTimeInterval(1)
        )
        #expect(try await Self.unread(store, "bob") == UnreadCounts(total: 1, rooms: ["room-1": 1]))
    }

    @Test(arguments: StoreKind.allCases) func aClaimOfABadgeAppCarriesEachRecipientsTotal(
        kind: StoreKind
    )
        async throws
    {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice", rooms: ["room-1", "room-2"])
        try await store.register(F.token(2), user: "bob", rooms: ["room-1", "room-2"])
        try await store.register(F.token(3), user: "bob", rooms: [])
        try await store.register(F.token(4), user: "carol", rooms: ["room-1"])
        try await Self.post(store, from: "alice", room: "room-2", at: 1)
        _ = try await store.claimDueDeliveries(now: F.time(1), limit: 10, leaseSeconds: 30, owner: F.owner)
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "carol", at: F.time(1))
        try await Self.post(store, from: "alice", at: 2)
        // Without the badge policy a job carries none.
        var jobs = try await store.claimDueDeliveries(now: F.time(2), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.count == 3 && jobs.allSatisfy { $0.badge == nil })
        await store.setUnreadPolicy(UnreadPolicy(badgeAppIds: ["app-a"]))
        try await Self.post(store, from: "bob", at: 3)
        jobs = try await store.claimDueDeliveries(now: F.time(3), limit: 10, leaseSeconds: 30, owner: F.owner)
        // alice has bob's message; carol, who read up to 1, has alice's and bob's.
        let badges = Dictionary(uniqueKeysWithValues: jobs.map { ($0.token, $0.badge) })
        #expect(badges == [F.token(1): 1, F.token(4): 2])
        // bob's devices, both, get his total when a message reaches him.
        try await Self.post(store, from: "carol", at: 4)
        jobs = try await store.claimDueDeliveries(now: F.time(4), limit: 10, leaseSeconds: 30, owner: F.owner)
        let bobs = jobs.filter { $0.token == F.token(2) || $0.token == F.token(3) }
        #expect(bobs.count == 2 && bobs.allSatisfy { $0.badge == 3 })
    }

    @Test(arguments: StoreKind.allCases) func theRetentionPurgeDeletesOldIndexedMessagesInBatches(
        kind: StoreKind
    )
        async throws
    {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice")
        try await store.register(F.token(2), user: "bob")
        for second in 1...5 { try await Self.post(store, from: "alice", at: Double(second)) }
        #expect(try await store.deleteIndexedMessages(before: F.time(4), limit: 2) == 2)
        #expect(try await store.deleteIndexedMessages(before: F.time(4), limit: 2) == 1)
        #expect(try await store.deleteIndexedMessages(before: F.time(4), limit: 2) == 0)
        #expect(try await Self.unread(store, "bob").total == 2)
        #expect(try await F.count("room_messages", in: store) == 2)
    }
}
