import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// What one user may add to the store, on each engine: a message id names one message of one sender
/// whatever its kind, counts checked under concurrency, the daily budget, the writes bucket, and retired
/// devices purged.
@Suite struct QuotaStoreTests {
    typealias F = StoreFixtures

    static func image(_ n: NewNotification) -> NewNotification {
        var image = n
        image.id = UUID()
        image.message.content = .image(caption: "look", imageURL: nil)
        return image
    }

    @Test(arguments: StoreKind.allCases) func aMessageIdNamesOneMessageOfOneSenderWhateverItsKind(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob")
        let first = try await store.createNotification(
            F.notification(messageId: "m-1"),
            recipients: .init(roomId: "room-1")
        )
        #expect(first.devices == 1)
        let conflict = CreateOutcome.conflict(notificationId: first.notificationId, roomId: "room-1", senderId: "alice")
        // Another kind, another sender, another room: refused, nothing recorded.
        #expect(
            try await store.createNotification(
                Self.image(F.notification(messageId: "m-1")),
                recipients: .init(roomId: "room-1")
            ) == conflict
        )
        #expect(
            try await store.createNotification(
                F.notification(sender: "mallory", messageId: "m-1"),
                recipients: .init(roomId: "room-1")
            ) == conflict
        )
        #expect(
            try await store.createNotification(
                F.notification(room: "room-2", messageId: "m-1"),
                recipients: .init(roomId: "room-2")
            ) == conflict
        )
        // A sender id with other bytes that reads the same is another sender.
        let decomposed = try await store.createNotification(
            F.notification(sender: "alic\u{0065}\u{0301}", messageId: "m-2"),
            recipients: .init(roomId: "room-1")
        )
        #expect(
            try await store.createNotification(
                F.notification(sender: "alic\u{e9}", messageId: "m-2"),
                recipients: .init(roomId: "room-1")
            )
                == .conflict(
                    notificationId: decomposed.notificationId,
                    roomId: "room-1",
                    senderId: "alic\u{0065}\u{0301}"
                )
        )
        // Each message id finds its own first notification, by its bytes; an unknown one finds none.
        #expect(try await store.notificationId(appId: "app-a", messageId: "m-1") == first.notificationId)
        #expect(try await store.notificationId(appId: "app-a", messageId: "m-2") == decomposed.notificationId)
        #expect(try await store.notificationId(appId: "app-a", messageId: "m-3") == nil)
        #expect(try await store.notificationId(appId: "app-b", messageId: "m-1") == nil)
        // The same kind, room and sender: the same message again.
        #expect(
            try await store.createNotification(F.notification(messageId: "m-1"), recipients: .init(roomId: "room-1"))
                == .duplicate(notificationId: first.notificationId, devices: 1)
        )
        #expect(try await F.count("notifications", in: store) == 2)
        #expect(try await store.pendingDeliveryCount() == 2)
        // An image message id is the image's alone too.
        let image = try await store.createNotification(
            Self.image(F.notification(messageId: "i-1")),
            recipients: .init(roomId: "room-1")
        )
        #expect(image.devices == 1)
        #expect(
            try await store.createNotification(F.notification(messageId: "i-1"), recipients: .init(roomId: "room-1"))
                == .conflict(notificationId: image.notificationId, roomId: "room-1", senderId: "alice")
        )
        #expect(
            try await store.createNotification(
                Self.image(F.notification(messageId: "i-1")),
                recipients: .init(roomId: "room-1")
            ) == .duplicate(notificationId: image.notificationId, devices: 1)
        )
    }

    /// `count` stores on one new database (one connection each), as relays are.
    static func stores(_ kind: StoreKind, _ count: Int) async throws -> [any Store] {
        let database = try await kind.makeDatabase()
        let first = try database.open()
        return [first] + (try (1..<count).map { _ in try database.open() })
    }

    @Test(arguments: StoreKind.allCases) func concurrentRegistrationsOverTheLimitEndAtTheLimit(
        kind: StoreKind
    ) async throws {
        let stores = try await Self.stores(kind, 6)
        let limits = UserLimits(devices: 10, rooms: 1000)
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<60 {
                let store = stores[index % stores.count]
                group.addTask {
                    do {
                        _ = try await store.upsertDevice(
                            appId: "app-a",
                            token: try F.token(index).registered(scope: "production"),
                            userId: "alice",
                            rooms: [],
                            origin: .user,
                            at: F.t0,
                            limits: limits
                        )
                        return true
                    } catch let exceeded as UserLimitExceeded {
                        #expect(exceeded == UserLimitExceeded(limit: .devices, current: 10, maximum: 10))
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 10)
        #expect(try await stores[0].liveDeviceCount(appId: "app-a", userId: "alice") == 10)
        /// Registers `token` for `user` through `store`, as a user does, counted against `limits`.
        func register(_ token: PushToken, _ user: String, on store: any Store, _ limits: UserLimits) async throws {
            _ = try await store.upsertDevice(
                appId: "app-a",
                token: try token.registered(scope: "production"),
                userId: user,
                rooms: [],
                origin: .user,
                at: F.t0,
                limits: limits
            )
        }
        // A device the user has again is not a new one; another user has a count of its own.
        let registered = try await stores[0].devices(appId: "app-a", userId: "alice")[0].token
        try await register(registered, "alice", on: stores[0], limits)
        try await register(F.token(100), "bob", on: stores[0], limits)
        // Over a lowered limit, the user's live devices still register again; a new one is refused.
        let lowered = UserLimits(devices: 3, rooms: 1000)
        try await register(registered, "alice", on: stores[1], lowered)
        await #expect(throws: UserLimitExceeded(limit: .devices, current: 10, maximum: 3)) {
            try await register(F.token(200), "alice", on: stores[1], lowered)
        }
    }

    @Test(arguments: StoreKind.allCases) func concurrentJoinsOverTheLimitEndAtTheLimit(kind: StoreKind) async throws {
        let stores = try await Self.stores(kind, 6)
        let limits = UserLimits(devices: 10, rooms: 10)
        let joined = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<30 {
                let store = stores[index % stores.count]
                group.addTask {
                    do {
                        // Every third call registers a device and joins two rooms with it.
                        if index % 3 == 0 {
                            _ = try await store.upsertDevice(
                                appId: "app-a",
                                token: try F.token(index).registered(scope: "production"),
                                userId: "alice",
                                rooms: ["r\(index)", "x\(index)"],
                                origin: .user,
                                at: F.t0,
                                limits: limits
                            )
                            return 2
                        }
                        try await store.addMember(
                            appId: "app-a",
                            roomId: "r\(index)",
                            userId: "alice",
                            notify: nil,
                            origin: .user,
                            at: F.t0,
                            limits: limits
                        )
                        return 1
                    } catch is UserLimitExceeded {
                        return 0
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        let rooms = try await stores[0].roomCount(appId: "app-a", userId: "alice")
        #expect(rooms == joined && rooms >= 9 && rooms <= 10)
        // One more is refused.
        await #expect(throws: UserLimitExceeded.self) {
            try await stores[0].addMember(
                appId: "app-a",
                roomId: "one-more",
                userId: "alice",
                notify: nil,
                origin: .user,
                at: F.t0,
                limits: UserLimits(devices: 10, rooms: rooms)
            )
        }
    }

    /// Where any user may set a level for any room (an app whose members Ditto holds), a bounded scope keeps
    /// a user's rooms with a level of their own within the bound, under concurrency too: setting one again,
    /// or dropping one, is never refused, and a dropped one makes room.
    @Test(arguments: StoreKind.allCases) func roomLevelsOfAnyRoomEndAtTheBound(kind: StoreKind) async throws {
        let stores = try await Self.stores(kind, 6)
        let scope = RoomLevelScope.anyRoom(atMost: 5)
        let set = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                let store = stores[index % stores.count]
                group.addTask {
                    do {
                        try await store.setRoomLevel(
                            appId: "app-a",
                            roomId: "r\(index)",
                            userId: "bob",
                            .set(.none),
                            scope: scope
                        )
                        return 1
                    } catch is UserLimitExceeded {
                        return 0
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(set == 5)
        let levelled = try await (0..<20).asyncFilter {
            try await stores[0].roomLevel(appId: "app-a", roomId: "r\($0)", userId: "bob") != nil
        }
        #expect(levelled.count == 5)
        let first = try #require(levelled.first)
        let store = stores[0]
        await #expect(throws: UserLimitExceeded(limit: .roomLevels, current: 5, maximum: 5)) {
            try await store.setRoomLevel(appId: "app-a", roomId: "one-more", userId: "bob", .set(.all), scope: scope)
        }
        // Another level for a room that has one, a drop, and then one more: all taken.
        try await store.setRoomLevel(appId: "app-a", roomId: "r\(first)", userId: "bob", .set(.mentions), scope: scope)
        try await store.setRoomLevel(appId: "app-a", roomId: "one-more", userId: "bob", .userDefault, scope: scope)
        try await store.setRoomLevel(appId: "app-a", roomId: "r\(first)", userId: "bob", .userDefault, scope: scope)
        try await store.setRoomLevel(appId: "app-a", roomId: "one-more", userId: "bob", .set(.all), scope: scope)
        #expect(try await store.roomLevel(appId: "app-a", roomId: "one-more", userId: "bob") == .all)
        // Over the bound by the backend's levels, a room that has one is still changed, and a new one refused.
        try await store.setRoomLevel(
            appId: "app-a",
            roomId: "b-1",
            userId: "bob",
            .set(.all),
            scope: .anyRoom(atMost: nil)
        )
        try await store.setRoomLevel(appId: "app-a", roomId: "b-1", userId: "bob", .set(.none), scope: scope)
        #expect(try await store.roomLevel(appId: "app-a", roomId: "b-1", userId: "bob") == NotifyLevel.none)
        await #expect(throws: UserLimitExceeded(limit: .roomLevels, current: 6, maximum: 5)) {
            try await store.setRoomLevel(appId: "app-a", roomId: "b-2", userId: "bob", .set(.all), scope: scope)
        }
        // Another user has a bound of its own; the backend's writes have none.
        try await store.setRoomLevel(appId: "app-a", roomId: "one-more", userId: "carol", .set(.all), scope: scope)
        try await store.setRoomLevel(
            appId: "app-a",
            roomId: "backend",
            userId: "bob",
            .set(.all),
            scope: .anyRoom(atMost: nil)
        )
    }

    @Test(arguments: StoreKind.allCases) func theDailyBudgetCountsNotificationsAndTheirDeliveryRows(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob")
        try await store.register(F.token(2), user: "bob")
        func send(_ id: String, at: Date, budget: DailyBudget) async throws -> CreateOutcome {
            var n = F.notification(messageId: id, at: at)
            n.budget = budget
            return try await store.createNotification(n, recipients: .init(roomId: "room-1"))
        }
        // Room for three notifications' texts, not for three with their two delivery rows each.
        let bare = DailyBudget.cost(of: F.notification(messageId: "a-1"), deliveries: 0)
        let bytes = DailyBudget(notifications: 100, bytes: 3 * bare)
        #expect(try await send("a-1", at: F.t0, budget: bytes).devices == 2)
        let refused = try await send("a-2", at: F.time(1), budget: bytes)
        let midnight = (Int(F.t0.timeIntervalSince1970) / 86_400 + 1) * 86_400
        let wait = midnight - Int(F.t0.timeIntervalSince1970) - 1
        #expect(refused == .overBudget(notificationId: refused.notificationId, retryAfterSeconds: wait))
        #expect(try await F.count("notifications", in: store) == 1)
        #expect(try await store.pendingDeliveryCount() == 2)
        // A count of notifications (a-2 was refused, so not counted); the next UTC day starts again.
        let count = DailyBudget(notifications: 3, bytes: 1 << 30)
        #expect(try await send("b-1", at: F.time(2), budget: count).devices == 2)
        #expect(try await send("b-2", at: F.time(3), budget: count).devices == 2)
        guard case .overBudget = try await send("b-3", at: F.time(4), budget: count) else {
            Issue.record("a fourth notification passed a budget of three")
            return
        }
        let tomorrow = Date(timeIntervalSince1970: TimeInterval(midnight))
        #expect(try await send("c-1", at: tomorrow, budget: count).devices == 2)
        // Without a budget nothing is counted.
        #expect(try await send("c-2", at: tomorrow + 1, budget: count).devices == 2)
        #expect(
            try await store.createNotification(
                F.notification(messageId: "c-3", at: tomorrow + 2),
                recipients: .init(roomId: "room-1")
            ).devices == 2
        )
        // Another sender has a budget of its own.
        var other = F.notification(sender: "carol", messageId: "d-1", at: tomorrow + 3)
        other.budget = count
        #expect(try await store.createNotification(other, recipients: .init(roomId: "room-1")).devices == 2)
        // One row of counts per user.
        #expect(try await F.count("user_usage", in: store) == 2)
    }

    @Test(arguments: StoreKind.allCases) func everyWriteTakesFromTheUsersWritesBucket(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let writes = UserRateRequest.Bucket(.writes, perMinute: 60, burst: 2)
        let write = UserRateRequest(appId: "app-a", senderId: "alice", buckets: [writes])
        let webhook = UserRateRequest(
            appId: "app-a",
            senderId: "alice",
            buckets: [writes, .init(.webhooks, perMinute: 60, burst: 10)],
            recipients: ["bob"],
            pushesPerRecipientPerMinute: 100
        )
        #expect(try await store.takeUserRate(write, at: F.t0) == nil)
        #expect(try await store.takeUserRate(webhook, at: F.t0) == nil)
        // The writes bucket is empty: a webhook is refused by it, taking nothing from its own bucket.
        #expect(try await store.takeUserRate(webhook, at: F.t0) == .writes(retryAfterSeconds: 1))
        #expect(try await store.takeUserRate(write, at: F.t0) == .writes(retryAfterSeconds: 1))
        #expect(try await store.takeUserRate(write, at: F.time(1)) == nil)
        #expect(try await F.count("rate_buckets", in: store) == 2)
        #expect(
            try await store.takeUserRate(
                UserRateRequest(appId: "app-a", senderId: "bob", buckets: [writes]),
                at: F.time(1)
            ) == nil
        )
    }

    @Test(arguments: StoreKind.allCases) func retiredDevicesArePurgedOldestFirstInBatches(kind: StoreKind) async throws
    {
        let store = try await kind.makeStore()
        for n in 1...4 { try await store.register(F.token(n), user: "user-\(n)") }
        for (n, seconds) in [(1, 10), (2, 20), (3, 30)] {
            try await F.execute(
                "UPDATE devices SET state = 'retired', retired_at = \(Int64(F.time(Double(seconds)).timeIntervalSince1970 * 1000)) WHERE token = '\(F.token(n).value)'",
                in: store
            )
        }
        #expect(try await store.deleteRetiredDevices(retiredBefore: F.time(25), limit: 1) == 1)
        #expect(try await store.device(appId: "app-a", token: F.token(1)) == nil)
        #expect(try await store.deleteRetiredDevices(retiredBefore: F.time(25), limit: 1) == 1)
        #expect(try await store.deleteRetiredDevices(retiredBefore: F.time(25), limit: 1) == 0)
        #expect(try await store.device(appId: "app-a", token: F.token(3))?.state == .retired)
        #expect(try await store.device(appId: "app-a", token: F.token(4))?.state == .live)
        #expect(try await F.count("devices", in: store) == 2)
    }
}

extension QuotaStoreTests {
    @Test func migratingKeepsAMessageIdOnTheFirstOfItsNotificationsOnly() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("relay.sqlite").path
            try FeedbackStoreTests.oldDatabase(
                at: path,
                version: 13,
                rows: """
                    INSERT INTO notifications (id, app_id, kind, message_id, room_id, sender_id, text, topic, created_at)
                    VALUES ('00000000-0000-4000-8000-000000000001', 'app-a', 'message', 'm-1', 'room-1', 'alice',
                            'first', 't', 1800000000000),
                        ('00000000-0000-4000-8000-000000000002', 'app-a', 'image_message', 'm-1', 'room-1', 'mallory',
                            'second', 't', 1800000001000);
                    INSERT INTO rate_buckets (app_id, user_id, micro_tokens, updated_at)
                    VALUES ('app-a', 'alice', 0, 1800000000000);
                    """
            )
            let store = try SQLiteStore(path: path, logger: .disabled())
            let first = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001"))
            let second = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000002"))
            #expect(try await store.notification(appId: "app-a", id: first)?.summary.messageId == "m-1")
            #expect(try await store.notification(appId: "app-a", id: second)?.summary.messageId == nil)
            var again = F.notification(messageId: "m-1")
            again.message.content = .text("first")
            #expect(
                try await store.createNotification(again, recipients: .init(roomId: "room-1"))
                    == .duplicate(notificationId: first, devices: 0)
            )
            // Buckets start again full.
            #expect(try await F.count("rate_buckets", in: store) == 0)
        }
    }
}

extension StoreFixtures {
    /// Runs raw SQL (the tests' own) on `store`'s database.
    static func execute(_ sql: String, in store: any Store) async throws {
        switch store {
        case let sqlite as SQLiteStore: try await sqlite.execute(sql)
        case let postgres as PostgresStore: try await postgres.execute(sql)
        default: preconditionFailure("no SQL for \(type(of: store))")
        }
    }
}
