import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// ``Store/createNotification(_:recipients:idempotencyKey:)`` with an ``IdempotencyKey``, on each engine.
@Suite struct IdempotencyStoreTests {
    typealias F = StoreFixtures

    static let retention = IdempotencyKey.retention.timeInterval

    /// The backend's key `key` for a request whose fingerprint is `request`'s bytes.
    static func key(_ key: String = "key-1", scope: String = "backend", request: String = "first") -> IdempotencyKey {
        IdempotencyKey(scope: scope, key: key, requestHash: Data(request.utf8))
    }

    /// A store where bob and carol each have a device in room-1.
    static func storeWithTwoDevices(_ kind: StoreKind) async throws -> any Store {
        let store = try await kind.makeStore()
        try await Self.addDevices(to: store)
        return store
    }

    static func addDevices(to store: any Store) async throws {
        try await store.register(F.token(1), user: "bob")
        try await store.register(F.token(2), user: "carol")
    }

    /// A new notification (a new id each time) to room-1 made at `at`, with `key`.
    static func create(
        _ store: any Store,
        key: IdempotencyKey?,
        app: String = "app-a",
        room: String = "room-1",
        messageId: String? = nil,
        at: Date = F.t0
    ) async throws -> CreateOutcome {
        try await store.createNotification(
            F.notification(app: app, room: room, messageId: messageId, at: at),
            recipients: .init(roomId: room),
            idempotencyKey: key
        )
    }

    static func count(_ table: String, in store: any Store) async throws -> Int {
        try await F.count(table, in: store)
    }

    @Test(arguments: StoreKind.allCases) func aReplayAnswersTheFirstNotificationAndInsertsNothing(
        kind: StoreKind
    ) async throws {
        let store = try await Self.storeWithTwoDevices(kind)
        let first = try await Self.create(store, key: Self.key())
        guard case .created(let id, 2) = first else { Issue.record("not created: \(first)"); return }
        let replay = try await Self.create(store, key: Self.key(), at: F.time(60))
        #expect(replay == .duplicate(notificationId: id, devices: 2))
        #expect(try await Self.count("notifications", in: store) == 1)
        #expect(try await Self.count("deliveries", in: store) == 2)
    }

    /// A key's alias is remembered beside it: a later call with another key and the same alias, or with the
    /// alias alone, answers the first; the key still answers as its own.
    @Test(arguments: StoreKind.allCases) func anAliasAnswersTheFirstWhateverKeyComesWithIt(kind: StoreKind) async throws
    {
        let store = try await Self.storeWithTwoDevices(kind)
        var keyed = Self.key("key-1")
        keyed.alias = "signed at 1 abc"
        let first = try await Self.create(store, key: keyed)
        guard case .created(let id, 2) = first else { Issue.record("not created: \(first)"); return }
        var other = Self.key("key-2")
        other.alias = "signed at 1 abc"
        for replay in [other, Self.key("signed at 1 abc"), Self.key("key-1")] {
            #expect(
                try await Self.create(store, key: replay, at: F.time(60)) == .duplicate(notificationId: id, devices: 2)
            )
        }
        #expect(try await Self.count("idempotency_keys", in: store) == 2)
        #expect(try await Self.count("notifications", in: store) == 1)
    }

    @Test(arguments: StoreKind.allCases) func anotherRequestWithTheKeyIsRefusedAndStoresNothing(
        kind: StoreKind
    ) async throws {
        let store = try await Self.storeWithTwoDevices(kind)
        let first = try await Self.create(store, key: Self.key())
        let other = try await Self.create(store, key: Self.key(request: "second"), messageId: "m-2")
        #expect(other == .keyReused(notificationId: first.notificationId))
        #expect(try await Self.count("notifications", in: store) == 1)
        #expect(try await Self.count("deliveries", in: store) == 2)
        // The key still names the first request, and the refused call's messageId was not taken.
        #expect(
            try await Self.create(store, key: Self.key())
                == .duplicate(notificationId: first.notificationId, devices: 2)
        )
        let later = try await Self.create(store, key: nil, messageId: "m-2")
        guard case .created = later else { Issue.record("m-2 was taken: \(later)"); return }
    }

    @Test(arguments: StoreKind.allCases) func eachScopeAndAppHasKeysOfItsOwn(kind: StoreKind) async throws {
        let store = try await Self.storeWithTwoDevices(kind)
        let backend = try await Self.create(store, key: Self.key())
        let user = try await Self.create(store, key: Self.key(scope: "user:bob"))
        let otherUser = try await Self.create(store, key: Self.key(scope: "user:carol"))
        let otherApp = try await Self.create(store, key: Self.key(), app: "app-b")
        let ids = [backend, user, otherUser, otherApp].map(\.notificationId)
        #expect(Set(ids).count == 4)
        for outcome in [backend, user, otherUser, otherApp] {
            guard case .created = outcome else { Issue.record("not created: \(outcome)"); return }
        }
        #expect(
            try await Self.create(store, key: Self.key(scope: "user:bob"))
                == .duplicate(notificationId: user.notificationId, devices: 2)
        )
    }

    @Test(arguments: StoreKind.allCases) func aKeyIsForgottenAfterItsRetention(kind: StoreKind) async throws {
        let store = try await Self.storeWithTwoDevices(kind)
        let first = try await Self.create(store, key: Self.key())
        let justBefore = F.t0.addingTimeInterval(Self.retention - 0.001)
        #expect(
            try await Self.create(store, key: Self.key(), at: justBefore)
                == .duplicate(notificationId: first.notificationId, devices: 2)
        )
        // A day on, the same key (even with another request) makes a new notification, remembered in turn.
        let dayLater = F.t0.addingTimeInterval(Self.retention)
        let again = try await Self.create(store, key: Self.key(request: "second"), at: dayLater)
        guard case .created(let id, 2) = again, id != first.notificationId else {
            Issue.record("not a new notification: \(again)")
            return
        }
        #expect(try await Self.count("idempotency_keys", in: store) == 1)
        #expect(
            try await Self.create(store, key: Self.key(request: "second"), at: dayLater + 1)
                == .duplicate(notificationId: id, devices: 2)
        )
        #expect(
            try await Self.create(store, key: Self.key(), at: dayLater + 1) == .keyReused(notificationId: id)
        )
    }

    @Test(arguments: StoreKind.allCases) func forgottenKeysAreDeletedInBoundedBatches(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let batch = F.forgottenKeysPerInsert(kind)
        for index in 0..<(batch + batch / 2) {
            _ = try await Self.create(store, key: Self.key("old-\(index)"), at: F.time(Double(index)))
        }
        let dayLater = F.time(Self.retention + Double(2 * batch))
        _ = try await Self.create(store, key: Self.key("new-1"), at: dayLater)
        #expect(try await Self.count("idempotency_keys", in: store) == batch / 2 + 1)
        _ = try await Self.create(store, key: Self.key("new-2"), at: dayLater)
        #expect(try await Self.count("idempotency_keys", in: store) == 2)
        // Notifications stay: only the keys are forgotten.
        #expect(try await Self.count("notifications", in: store) == batch + batch / 2 + 2)
    }

    @Test(arguments: StoreKind.allCases) func aKeySurvivesClosingAndReopeningTheFile(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        let first: CreateOutcome
        do {
            let store = try database.open()
            try await Self.addDevices(to: store)
            first = try await Self.create(store, key: Self.key())
        }
        let reopened = try database.open()
        #expect(
            try await Self.create(reopened, key: Self.key(), at: F.time(3600))
                == .duplicate(notificationId: first.notificationId, devices: 2)
        )
        #expect(
            try await Self.create(reopened, key: Self.key(request: "second"))
                == .keyReused(notificationId: first.notificationId)
        )
    }

    /// Two stores on one database are two connections, as two relays on one database: calls with the same key
    /// made at the same time record one notification, and the other call answers from it.
    @Test(arguments: StoreKind.allCases) func concurrentCallsOnTwoConnectionsRecordOneNotification(
        kind: StoreKind
    ) async throws {
        do {
            let database = try await kind.makeDatabase()
            let one = try database.open()
            let two = try database.open()
            try await Self.addDevices(to: one)
            let rounds = 20
            for round in 0..<rounds {
                async let a = Self.create(one, key: Self.key("race-\(round)"))
                async let b = Self.create(two, key: Self.key("race-\(round)"))
                let outcomes = try await [a, b]
                let created = outcomes.filter { if case .created = $0 { true } else { false } }
                #expect(created.count == 1, "round \(round): \(outcomes)")
                #expect(
                    outcomes.contains(.duplicate(notificationId: created.first?.notificationId ?? UUID(), devices: 2))
                )
            }
            #expect(try await Self.count("notifications", in: one) == rounds)
            #expect(try await Self.count("deliveries", in: two) == 2 * rounds)
        }
    }

    @Test(arguments: StoreKind.allCases) func aCallThatFailsToCommitRemembersNothing(kind: StoreKind) async throws {
        let store = try await Self.storeWithTwoDevices(kind)
        var notification = F.notification(messageId: nil)
        _ = try await store.createNotification(notification, recipients: .init(roomId: "room-1"), idempotencyKey: nil)
        // The same notification id again: the insert fails on the primary key and the transaction rolls back.
        await #expect { () async throws -> Void in
            _ = try await store.createNotification(
                notification,
                recipients: .init(roomId: "room-1"),
                idempotencyKey: Self.key()
            )
        } throws: { ($0 as? StoreError)?.code == .constraint }
        #expect(try await Self.count("idempotency_keys", in: store) == 0)
        notification.id = UUID()
        let retried = try await store.createNotification(
            notification,
            recipients: .init(roomId: "room-1"),
            idempotencyKey: Self.key(request: "second")
        )
        #expect(retried == .created(notificationId: notification.id, devices: 2))
    }

    /// The key is looked up first; with a key it has not seen, the messageId rule answers as without one,
    /// and a call answered by it remembers no key.
    @Test(arguments: StoreKind.allCases) func theKeyIsCheckedBeforeTheMessageId(kind: StoreKind) async throws {
        let store = try await Self.storeWithTwoDevices(kind)
        let byMessage = try await Self.create(store, key: nil, messageId: "m-1")
        #expect(
            try await Self.create(store, key: Self.key("k-m1"), messageId: "m-1")
                == .duplicate(notificationId: byMessage.notificationId, devices: 2)
        )
        let conflict = try await Self.create(store, key: Self.key("k-m1-room-2"), room: "room-2", messageId: "m-1")
        #expect(conflict == .conflict(notificationId: byMessage.notificationId, roomId: "room-1", senderId: "alice"))
        #expect(try await Self.count("idempotency_keys", in: store) == 0)
        let byKey = try await Self.create(store, key: Self.key("k-2"), messageId: "m-2")
        #expect(
            try await Self.create(store, key: Self.key("k-2", request: "second"), messageId: "m-1")
                == .keyReused(notificationId: byKey.notificationId)
        )
    }

    /// Step 10 adds the keys table to a version-9 file and keeps its rows: the device still receives, and
    /// the old notification's messageId still de-duplicates.
    @Test func migrationTenKeepsTheRowsOfAVersionNineDatabase() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v9.sqlite").path
            let t0 = Int64(F.t0.timeIntervalSince1970 * 1000)
            let notificationId = "0b5c4a8e-3f7e-4c1e-9a43-2f1d6b8e9c01"
            try FeedbackStoreTests.oldDatabase(
                at: path,
                version: 9,
                rows: """
                    INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
                    VALUES ('app-a', '\(F.token(1).value)', 'bob', 'sandbox', \(t0), \(t0));
                    INSERT INTO room_members (app_id, room_id, user_id, joined_at)
                    VALUES ('app-a', 'room-1', 'bob', \(t0));
                    INSERT INTO rooms (app_id, room_id, membership, updated_at)
                    VALUES ('app-a', 'room-1', 'closed', \(t0));
                    INSERT INTO notifications (id, app_id, kind, message_id, room_id, sender_id, topic, push_type,
                        priority, payload, created_at)
                    VALUES ('\(notificationId)', 'app-a', 'message', 'm-1', 'room-1', 'alice', 'com.example.chat',
                        'alert', 10, x'7b7d', \(t0));
                    """
            )
            let store = try SQLiteStore(path: path, logger: .disabled())
            #expect(store.appliedMigrations == SQLiteMigrations.steps.count - 9)
            #expect(store.schemaVersion == SQLiteMigrations.steps.count)
            #expect(try await store.device(appId: "app-a", token: F.token(1))?.userId == "bob")
            #expect(try await store.roomMembership(appId: "app-a", roomId: "room-1") == .closed)
            let old = try #require(UUID(uuidString: notificationId))
            #expect(
                try await Self.create(store, key: Self.key(), messageId: "m-1")
                    == .duplicate(notificationId: old, devices: 0)
            )
            let keyed = try await Self.create(store, key: Self.key("after-upgrade"))
            #expect(keyed.devices == 1)
            #expect(
                try await Self.create(store, key: Self.key("after-upgrade"))
                    == .duplicate(notificationId: keyed.notificationId, devices: 1)
            )
        }
    }
}
