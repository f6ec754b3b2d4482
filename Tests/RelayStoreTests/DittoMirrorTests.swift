import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// The Ditto mirror on every engine: document ordering by txnId, tombstones, replays, who a stream message
/// reaches, and one notification per message id across concurrent appliers.
@Suite struct DittoMirrorTests {
    typealias F = StoreFixtures

    static let settings = DittoApplySettings(
        rule: DittoMessageRule(),
        sendAs: "com.example.chat",
        ttlSeconds: 86_400,
        privacy: false
    )
    /// The arrival time of every batch.
    static let at = F.t0

    /// One event from its JSON.
    static func event(_ json: String) throws -> DittoEvent {
        try DittoEvent.decode(Array(json.utf8))
    }

    static func user(
        _ id: String,
        txn: Int,
        name: String? = nil,
        subscriptions: String = "{}",
        mentions: String = "{}"
    ) throws -> DittoEvent {
        let name = name.map { "\"\($0)\"" } ?? "null"
        return try event(
            """
            {"txnId":\(txn),"type":"documentChanged","collection":"users","change":{"method":"upsert",
            "oldValue":null,"newValue":{"_id":"\(id)","name":\(name),"subscriptions":\(subscriptions),
            "mentions":\(mentions)}}}
            """
        )
    }

    static func removeUser(_ id: String, txn: Int) throws -> DittoEvent {
        try event(
            """
            {"txnId":\(txn),"type":"documentChanged","collection":"users","change":{"method":"remove",
            "value":{"_id":"\(id)"}}}
            """
        )
    }

    static func room(
        _ id: String,
        txn: Int,
        name: String,
        collection: String = "rooms",
        participants: [String] = []
    )
        throws -> DittoEvent
    {
        let list = participants.map { "\"\($0)\"" }.joined(separator: ",")
        return try event(
            """
            {"txnId":\(txn),"type":"documentChanged","collection":"\(collection)","change":{"method":"upsert",
            "oldValue":null,"newValue":{"_id":"\(id)","name":"\(name)","participants":[\(list)]}}}
            """
        )
    }

    static func message(
        _ id: String,
        txn: Int = 1,
        room: String = "room-1",
        from sender: String = "alice",
        collection: String = "messages",
        ageSeconds: Double = 10,
        mentions: [String] = []
    ) throws -> DittoEvent {
        let created = Timestamp.rfc3339(at.addingTimeInterval(-ageSeconds))
        let mentioned = mentions.map { "{\"userId\":\"\($0)\",\"startIndex\":0,\"endIndex\":1}" }
            .joined(separator: ",")
        return try event(
            """
            {"txnId":\(txn),"type":"documentChanged","collection":"\(collection)","change":{"method":"upsert",
            "oldValue":null,"newValue":{"_id":"\(id)","roomId":"\(room)","userId":"\(sender)","text":"hello",
            "createdOn":"\(created)","mentions":[\(mentioned)]}}}
            """
        )
    }

    /// Applies `events` to app-a at ``at``.
    @discardableResult
    static func apply(_ events: [DittoEvent], to store: any Store) async throws -> DittoApplyCounts {
        try await store.applyDittoEvents(events, appId: "app-a", settings: settings, at: at)
    }

    /// The users whose devices got the notification of message `id` (devices of user n are token n).
    static func recipients(of id: String, in store: any Store, users: [String]) async throws -> Set<String> {
        guard let notification = try await store.notificationId(appId: "app-a", messageId: id) else { return [] }
        let tokens = try await store.pendingTokens(of: notification)
        return Set(users.enumerated().filter { tokens.contains(F.token($0.offset)) }.map(\.element))
    }

    static let people = ["alice", "bob", "carol", "dave", "erin", "frank"]

    /// A store with one device per person (token n for person n).
    static func store(_ kind: StoreKind) async throws -> any Store {
        let store = try await kind.makeStore()
        for (n, user) in people.enumerated() { try await store.register(F.token(n), user: user, rooms: []) }
        return store
    }

    @Test(arguments: StoreKind.allCases) func aHigherTxnIdAppliesAnEqualOneIsADuplicateALowerOneIsStale(
        kind: StoreKind
    ) async throws {
        let store = try await Self.store(kind)
        let subscribed = #"{"room-1":"2020-01-01T00:00:00Z"}"#
        var counts = try await Self.apply([try Self.user("bob", txn: 5, subscriptions: subscribed)], to: store)
        #expect(counts.applied == 1)
        counts = try await Self.apply([try Self.user("bob", txn: 5, subscriptions: subscribed)], to: store)
        #expect(counts.duplicates == 1 && counts.applied == 0)
        counts = try await Self.apply([try Self.user("bob", txn: 3)], to: store)
        #expect(counts.ignored == 1 && counts.applied == 0)
        #expect(counts.outcomes["users"] == [.ignored: 1])
        try await Self.apply([try Self.message("m-1")], to: store)
        #expect(try await Self.recipients(of: "m-1", in: store, users: Self.people) == ["bob"])
        counts = try await Self.apply([try Self.user("bob", txn: 6)], to: store)
        #expect(counts.applied == 1)
        try await Self.apply([try Self.message("m-2")], to: store)
        #expect(try await Self.recipients(of: "m-2", in: store, users: Self.people) == [])
    }

    @Test(arguments: StoreKind.allCases) func aRemoveLeavesATombstoneThatAnOlderReplayedUpsertCannotPass(
        kind: StoreKind
    ) async throws {
        let store = try await Self.store(kind)
        let subscribed = #"{"room-1":"2020-01-01T00:00:00Z"}"#
        try await Self.apply([try Self.user("bob", txn: 5, subscriptions: subscribed)], to: store)
        var counts = try await Self.apply([try Self.removeUser("bob", txn: 7)], to: store)
        #expect(counts.applied == 1)
        counts = try await Self.apply([try Self.user("bob", txn: 5, subscriptions: subscribed)], to: store)
        #expect(counts.applied == 0 && counts.ignored == 1)
        counts = try await Self.apply([try Self.user("bob", txn: 6, subscriptions: subscribed)], to: store)
        #expect(counts.ignored == 1)
        try await Self.apply([try Self.message("m-1")], to: store)
        #expect(try await Self.recipients(of: "m-1", in: store, users: Self.people) == [])
    }

    @Test(arguments: StoreKind.allCases) func aReplayedBatchChangesNothing(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        let batch = [
            try Self.room("room-1", txn: 1, name: "Team"),
            try Self.user("alice", txn: 2, name: "Alice", subscriptions: #"{"room-1":"2020-01-01T00:00:00Z"}"#),
            try Self.user("bob", txn: 3, name: "Bob", subscriptions: #"{"room-1":"2020-01-01T00:00:00Z"}"#),
            try Self.message("m-1", txn: 4),
        ]
        let first = try await Self.apply(batch, to: store)
        #expect(first.applied == 4 && first.notifications == 1 && first.duplicates == 0)
        #expect(first.outcomes["messages"] == [.notified: 1])
        let notifications = try await F.count("notifications", in: store)
        let deliveries = try await F.count("deliveries", in: store)
        let again = try await Self.apply(batch, to: store)
        #expect(again.applied == 0 && again.notifications == 0 && again.duplicates == 4)
        #expect(try await F.count("notifications", in: store) == notifications)
        #expect(try await F.count("deliveries", in: store) == deliveries)
        #expect(try await Self.recipients(of: "m-1", in: store, users: Self.people) == ["bob"])
    }

    @Test(arguments: StoreKind.allCases) func subscribersMentionsAndDMParticipantsGetItNeverTheSenderOrReaders(
        kind: StoreKind
    ) async throws {
        let store = try await Self.store(kind)
        let before = Timestamp.rfc3339(Self.at.addingTimeInterval(-3600))
        let after = Timestamp.rfc3339(Self.at)
        try await Self.apply(
            [
                try Self.room("room-1", txn: 1, name: "Team"),
                try Self.room(
                    "dm-1",
                    txn: 1,
                    name: "Alice & Frank",
                    collection: "dm_rooms",
                    participants: ["alice", "frank"]
                ),
                try Self.user("alice", txn: 1, name: "Alice", subscriptions: "{\"room-1\":\"\(before)\"}"),
                try Self.user("bob", txn: 1, subscriptions: "{\"room-1\":\"\(before)\"}"),
                try Self.user("carol", txn: 1, subscriptions: "{\"room-1\":\"\(after)\"}"),
                try Self.user("erin", txn: 1, mentions: #"{"room-1":["m-1"]}"#),
                try Self.user("frank", txn: 1, subscriptions: #"{"room-1":null}"#),
            ],
            to: store
        )
        let counts = try await Self.apply(
            [
                try Self.message("m-1", mentions: ["dave"]),
                try Self.message("d-1", room: "dm-1", collection: "dm_messages"),
            ],
            to: store
        )
        #expect(counts.notifications == 2)
        #expect(counts.outcomes["dmMessages"] == [.notified: 1])
        #expect(try await Self.recipients(of: "m-1", in: store, users: Self.people) == ["bob", "dave", "erin"])
        #expect(try await Self.recipients(of: "d-1", in: store, users: Self.people) == ["frank"])
    }

    /// What no event can name is not kept, on either store (PostgreSQL's btree refuses a key past ~2.7 kB,
    /// which would fail the batch every time): a room whose `messagesId` is past ``ChatMessage/maxIdBytes``,
    /// or is no string, is ignored, a user's subscription and mention under such a room id are left out.
    @Test(arguments: StoreKind.allCases) func idsNoEventCanNameAreNotKept(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        // Incompressible, so PostgreSQL's index would hold all of it.
        let long = (0..<90).map { _ in UUID().uuidString }.joined()
        let read = Timestamp.rfc3339(Self.at.addingTimeInterval(-60))
        let subscriptions = "{\"\(long)\":\"\(read)\",\"room-1\":\"\(read)\"}"
        let counts = try await Self.apply(
            [
                try Self.event(
                    #"""
                    {"txnId":1,"type":"documentChanged","collection":"rooms","change":{"method":"upsert",
                    "oldValue":null,"newValue":{"_id":"side","name":"Side","messagesId":"\#(long)"}}}
                    """#
                ),
                try Self.user("bob", txn: 2, subscriptions: subscriptions, mentions: "{\"\(long)\":[\"m\"]}"),
            ]
                + [(3, "5"), (4, #"{"a":1}"#), (5, #""""#)].map { txn, messagesId in
                    // Not a string names no collection either; a blank one is unset (the SDK's default).
                    try Self.event(
                        #"""
                        {"txnId":\#(txn),"type":"documentChanged","collection":"rooms","change":{"method":"upsert",
                        "oldValue":null,"newValue":{"_id":"side-\#(txn)","name":"Side","messagesId":\#(messagesId)}}}
                        """#
                    )
                },
            to: store
        )
        #expect(counts.ignored == 3 && counts.applied == 2, "\(counts)")
        #expect(try await store.dittoRoom(appId: "app-a", roomId: "side") == nil)
        #expect(try await store.dittoRoom(appId: "app-a", roomId: "side-3") == nil)
        #expect(try await store.dittoRoom(appId: "app-a", roomId: "side-4") == nil)
        #expect(try await store.dittoRoom(appId: "app-a", roomId: "side-5") != nil)
        // A mirrored room whose next version names no collection is no longer kept as it was.
        let renamed = try await Self.apply(
            [
                try Self.event(
                    #"""
                    {"txnId":6,"type":"documentChanged","collection":"rooms","change":{"method":"upsert",
                    "oldValue":null,"newValue":{"_id":"side-5","name":"Side","messagesId":7}}}
                    """#
                )
            ],
            to: store
        )
        #expect(renamed.ignored == 1, "\(renamed)")
        #expect(try await store.dittoRoom(appId: "app-a", roomId: "side-5") == nil)
        #expect(try await store.isDittoSubscriber(appId: "app-a", roomId: "room-1", userId: "bob"))
        #expect(try await store.isDittoSubscriber(appId: "app-a", roomId: long, userId: "bob") == false)
    }

    /// A message notifies only from the collection its room's messages are read from (the room's
    /// `messagesId`, else `messages`, or `dm_messages` for a DM room): one written to another room's
    /// collection, or to `messages` with a DM room's id, is shown in no room: it claims no message id, counts
    /// as unread for no one, and a delete document there deletes nothing.
    @Test(arguments: StoreKind.allCases) func aMessageOutsideItsRoomsCollectionNotifiesNobody(
        kind: StoreKind
    ) async throws {
        let store = try await Self.store(kind)
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"]))
        let before = Timestamp.rfc3339(Self.at.addingTimeInterval(-3600))
        try await Self.apply(
            [
                try Self.room("room-1", txn: 1, name: "Team"),
                try Self.event(
                    #"""
                    {"txnId":1,"type":"documentChanged","collection":"rooms","change":{"method":"upsert",
                    "oldValue":null,"newValue":{"_id":"side","name":"Side","messagesId":"side_messages"}}}
                    """#
                ),
                try Self.room(
                    "dm-1",
                    txn: 1,
                    name: "Bob & Carol",
                    collection: "dm_rooms",
                    participants: ["bob", "carol"]
                ),
                try Self.user("bob", txn: 1, subscriptions: "{\"room-1\":\"\(before)\",\"side\":\"\(before)\"}"),
            ],
            to: store
        )
        var counts = try await Self.apply(
            [
                try Self.message("x-1", room: "room-1", from: "dave", collection: "side_messages"),
                try Self.message("x-2", room: "dm-1", from: "dave", collection: "messages"),
                try Self.message("ok-1", room: "side", from: "dave", collection: "side_messages"),
            ],
            to: store
        )
        #expect(counts.notifications == 1)
        #expect(try await store.notificationId(appId: "app-a", messageId: "x-1") == nil)
        #expect(try await store.notificationId(appId: "app-a", messageId: "x-2") == nil)
        #expect(try await Self.recipients(of: "ok-1", in: store, users: Self.people) == ["bob"])
        var unread = try await UnreadStoreTests.unread(store, "bob")
        #expect(unread.rooms == ["side": 1] && unread.total == 1, "\(unread)")
        // ok-1's delete written to room-1's collection is no delete of side's message.
        counts = try await Self.apply(
            [try DeleteAuthorTests.delete("del-1", of: "ok-1", txn: 2, room: "side", from: "dave")],
            to: store
        )
        #expect(counts.ignored == 1)
        unread = try await UnreadStoreTests.unread(store, "bob")
        #expect(unread.total == 1, "\(unread)")
        // The id of a message outside its room's collection was not taken: the real one notifies.
        try await Self.apply([try Self.message("x-1", txn: 2, room: "room-1", from: "dave")], to: store)
        #expect(try await Self.recipients(of: "x-1", in: store, users: Self.people) == ["bob"])
    }

    /// A DM room written with a public room's `_id` (any peer can write `dm_rooms`) takes none of that room's
    /// messages, nor the public room the DM's: each message belongs to the room whose collection it is in.
    @Test(arguments: StoreKind.allCases) func aDMRoomWithAPublicRoomsIdSilencesNeither(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        let before = Timestamp.rfc3339(Self.at.addingTimeInterval(-3600))
        try await Self.apply(
            [
                try Self.room("room-1", txn: 1, name: "Team"),
                try Self.user("bob", txn: 1, subscriptions: "{\"room-1\":\"\(before)\"}"),
                try Self.room(
                    "room-1",
                    txn: 2,
                    name: "E & F",
                    collection: "dm_rooms",
                    participants: ["erin", "frank"]
                ),
            ],
            to: store
        )
        let counts = try await Self.apply(
            [
                try Self.message("public-1", room: "room-1", from: "dave"),
                try Self.message("dm-1", room: "room-1", from: "erin", collection: "dm_messages"),
            ],
            to: store
        )
        #expect(counts.notifications == 2)
        #expect(try await Self.recipients(of: "public-1", in: store, users: Self.people) == ["bob"])
        #expect(try await Self.recipients(of: "dm-1", in: store, users: Self.people) == ["frank"])
    }

    /// A room or user whose `_id` no message or device can name (past 256 bytes) is not mirrored.
    @Test(arguments: StoreKind.allCases) func aRoomOrUserWithAnUnusableIdIsIgnored(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        let long = String(repeating: "r", count: ChatMessage.maxIdBytes + 1)
        let counts = try await Self.apply(
            [try Self.room(long, txn: 1, name: "Long"), try Self.user(long, txn: 1, name: "Long")],
            to: store
        )
        #expect(counts.ignored == 2, "\(counts)")
        #expect(counts.outcomes["rooms"] == [.ignored: 1] && counts.outcomes["users"] == [.ignored: 1])
    }

    @Test(arguments: StoreKind.allCases) func aMessageTooOldWhenItArrivesIsSkipped(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        try await Self.apply(
            [try Self.user("bob", txn: 1, subscriptions: #"{"room-1":"2020-01-01T00:00:00Z"}"#)],
            to: store
        )
        let counts = try await Self.apply([try Self.message("m-old", ageSeconds: 301)], to: store)
        #expect(counts.ignored == 1 && counts.notifications == 0)
        #expect(counts.outcomes["messages"] == [.tooOld: 1])
        #expect(try await store.notificationId(appId: "app-a", messageId: "m-old") == nil)
    }

    /// A `createdOn` years ahead (anyone who writes to Ditto may send one) is pushed as arriving now, and its
    /// id is kept a day past its arrival at most (plus the age limit and the clock-skew margin), not until then.
    @Test(arguments: StoreKind.allCases) func aMessageFromFarAheadKeepsItsIdADayAtMost(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        try await Self.apply(
            [try Self.user("bob", txn: 1, subscriptions: #"{"room-1":"2020-01-01T00:00:00Z"}"#)],
            to: store
        )
        let counts = try await Self.apply([try Self.message("m-ahead", txn: 2, ageSeconds: -1e10)], to: store)
        #expect(counts.notifications == 1, "\(counts)")
        #expect(try await Self.seenIds(in: store) == 1)
        let kept: TimeInterval = 86_400 + 300 + 600  // a day, the age limit, the clock-skew margin
        // Each batch deletes the seen ids kept until before it: a batch of an unknown collection.
        let later = try Self.event(
            #"{"txnId":3,"type":"documentChanged","collection":"other","change":{"method":"remove","value":{"_id":"x"}}}"#
        )
        _ = try await store.applyDittoEvents([later], appId: "app-a", settings: Self.settings, at: Self.at + kept - 1)
        #expect(try await Self.seenIds(in: store) == 1)
        _ = try await store.applyDittoEvents([later], appId: "app-a", settings: Self.settings, at: Self.at + kept + 1)
        #expect(try await Self.seenIds(in: store) == 0)
    }

    /// The rows of `ditto_seen_messages`.
    static func seenIds(in store: any Store) async throws -> Int64 {
        let sql = "SELECT count(*) FROM ditto_seen_messages"
        switch store {
        case let sqlite as SQLiteStore: return try await sqlite.readRow(sql) { $0.int64(0) }
        case let postgres as PostgresStore: return try await postgres.readRow(sql) { try $0.int64(0) }
        default: preconditionFailure("no rows for \(type(of: store))")
        }
    }

    @Test func oneMessageAppliedByTwoRelaysAtOnceIsPushedOnce() async throws {
        let database = try await StoreKind.postgres.makeDatabase()
        let stores = try (0..<2).map { _ in try database.open() }
        try await stores[0].register(F.token(1), user: "bob", rooms: [])
        try await Self.apply(
            [try Self.user("bob", txn: 1, subscriptions: #"{"room-1":"2020-01-01T00:00:00Z"}"#)],
            to: stores[0]
        )
        let rounds = 20
        for round in 0..<rounds {
            let batch = [try Self.message("m-\(round)", txn: round + 10)]
            let counts = try await SeveralRelaysTests.atOnce(stores) { store in try await Self.apply(batch, to: store) }
            #expect(counts.map(\.notifications).reduce(0, +) == 1, "round \(round): \(counts)")
            #expect(counts.map(\.duplicates).reduce(0, +) == 1, "round \(round): \(counts)")
        }
        #expect(try await F.count("notifications", in: stores[1]) == rounds)
        #expect(try await F.count("deliveries", in: stores[1]) == rounds)
    }

    /// Two relays applying batches that touch the same documents in opposite orders deadlock in PostgreSQL
    /// (the server rolls one back with SQLSTATE 40P01); the store runs that batch again, so every batch
    /// succeeds, each round's message is pushed once, and the mirror holds the newest version of each user.
    @Test func overlappingBatchesInOppositeOrdersAllSucceedAndLeaveTheMirrorConsistent() async throws {
        let database = try await StoreKind.postgres.makeDatabase()
        // Deadlocks found in 10 ms instead of the server's default second, so the rounds stay quick.
        let stores = try (0..<2).map { _ in
            try PostgresStore(url: database.location + "%20-cdeadlock_timeout%3D10", logger: .disabled())
        }
        for (n, user) in Self.people.enumerated() { try await stores[0].register(F.token(n), user: user, rooms: []) }
        let rooms = (0..<4).map { "room-\($0)" }
        let rounds = 60
        /// Round `round`'s version of every room and user (each user subscribed to one room), at `txn`,
        /// then the round's message; `reversed` lists the documents the other way round.
        func batch(round: Int, txn: Int, reversed: Bool) throws -> [DittoEvent] {
            var documents = try rooms.map { try Self.room($0, txn: txn, name: "\($0) \(txn)") }
            documents += try Self.people.enumerated().map { n, user in
                let room = rooms[(n + round) % rooms.count]
                return try Self.user(
                    user,
                    txn: txn,
                    name: "\(user) \(txn)",
                    subscriptions: "{\"\(room)\":\"2020-01-01T00:00:00Z\"}"
                )
            }
            let message = try Self.message("m-\(round)", txn: 1_000 + round, room: rooms[0], from: "alice")
            return (reversed ? documents.reversed() : documents) + [message]
        }
        for round in 0..<rounds {
            let batches = [
                try batch(round: round, txn: 2 * round + 1, reversed: false),
                try batch(round: round, txn: 2 * round + 2, reversed: true),
            ]
            async let first = Self.apply(batches[0], to: stores[0])
            async let second = Self.apply(batches[1], to: stores[1])
            let counts = try await [first, second]
            #expect(counts.map(\.notifications).reduce(0, +) == 1, "round \(round): \(counts)")
        }
        #expect(try await F.count("notifications", in: stores[1]) == rounds)
        // The second batch of the last round has the highest txnId: its version of each user is the one kept.
        let last = 2 * rounds
        let names = try await stores[1].dittoUserNames(appId: "app-a")
        #expect(names == Dictionary(uniqueKeysWithValues: Self.people.map { ($0, "\($0) \(last)") }))
        let subscriptions = try await stores[1].dittoSubscriptions(appId: "app-a")
        let expected = Self.people.enumerated().map { n, user in "\(user)>\(rooms[(n + rounds - 1) % rooms.count])" }
        #expect(subscriptions == expected.sorted())
        #expect(try await F.count("ditto_rooms", in: stores[1]) == rooms.count)
    }
}

extension PostgresStore {
    /// Each mirrored user's name (tests).
    func dittoUserNames(appId: String) throws -> [String: String] {
        let rows = try db.query("SELECT user_id, name FROM ditto_users WHERE app_id = $1", appId)
        return Dictionary(uniqueKeysWithValues: (0..<rows.count).map { (rows[$0].string(0), rows[$0].string(1)) })
    }

    /// Every mirrored subscription as `user>room`, sorted (tests).
    func dittoSubscriptions(appId: String) throws -> [String] {
        let rows = try db.query(
            "SELECT user_id || '>' || room_id FROM ditto_subscriptions WHERE app_id = $1 ORDER BY 1",
            appId
        )
        return rows.all.map { $0.string(0) }
    }
}
