import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// Each stored model is decoded from a row in one place (``RelayStore/StoredRow``): what both engines read
/// back alike, bad values included.
@Suite struct StoredRowTests {
    typealias F = StoreFixtures

    /// A stored value that makes no model fails the read with `.invalidData`, on every path that reads it.
    @Test(arguments: StoreKind.allCases) func anUnknownEnvironmentIsInvalidData(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice")
        try await F.execute("UPDATE devices SET environment = 'moon'", in: store)
        await #expect { try await store.device(appId: "app-a", token: F.token(1)) } throws: {
            ($0 as? StoreError)?.code == .invalidData
        }
        await #expect { try await store.devices(appId: "app-a", userId: "alice") } throws: {
            ($0 as? StoreError)?.code == .invalidData
        }
    }

    /// Both engines read a device back the same: every column, the unlinked topics' JSON included.
    @Test(arguments: StoreKind.allCases) func aRetiredDeviceReadsBackWhole(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice", environment: .production)
        try await F.execute(
            """
            UPDATE devices SET state = 'retired', retired_at = \(EpochMilliseconds.of(F.time(5))),
                retired_reason = 'Unregistered', apns_timestamp = \(EpochMilliseconds.of(F.time(4))),
                unlinked_topics = '["com.example.a", "com.example.b"]'
            """,
            in: store
        )
        let device = try #require(try await store.device(appId: "app-a", token: F.token(1)))
        #expect(
            device
                == Device(
                    appId: "app-a",
                    token: F.token(1),
                    userId: "alice",
                    state: .retired,
                    createdAt: F.t0,
                    updatedAt: F.t0,
                    retiredAt: F.time(5),
                    retiredReason: "Unregistered",
                    invalidSince: F.time(4)
                )
        )
        // A token's equality leaves its environment and unlinked topics out.
        #expect(device.token.scope == "production")
        #expect(device.token.unlinked == ["com.example.a", "com.example.b"])
        #expect(try await store.deadTokens(appId: "app-a", since: F.t0) == [device])
    }

    /// The count decoders read both engines' rows alike.
    @Test(arguments: StoreKind.allCases) func countsReadAlike(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let due = EpochMilliseconds.of(F.time(5))
        #expect(
            try await Self.readRow("SELECT 'app-a', 3, 2, 1, \(due)", in: store) { try OutboxCounts(row: $0, from: 1) }
                == OutboxCounts(pending: 3, due: 2, leased: 1, oldestDueAt: F.time(5))
        )
        #expect(
            try await Self.readRow("SELECT 4, 0, 0, NULL", in: store) { try OutboxCounts(row: $0) }
                == OutboxCounts(pending: 4)
        )
        let unread = try await Self.readRow("SELECT 'room-1', 4, 6", in: store) { row in
            var counts = UnreadCounts()
            try counts.add(row: row)
            return counts
        }
        #expect(unread == UnreadCounts(total: 6, rooms: ["room-1": 4]))
        let devices = try await Self.readRow("SELECT 5, 2", in: store) { try DeviceState.counts(row: $0) }
        #expect(devices == [.live: 5, .retired: 2])
    }

    /// A room's membership reads back; one that is none fails with `.invalidData` naming the room.
    @Test(arguments: StoreKind.allCases) func anUnknownMembershipIsInvalidData(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let closed = try await Self.readRow("SELECT 'closed'", in: store) { try RoomMembership(row: $0, roomId: "r1") }
        #expect(closed == .closed)
        await #expect {
            try await Self.readRow("SELECT 'moon'", in: store) { try RoomMembership(row: $0, roomId: "r1") }
        } throws: {
            ($0 as? StoreError)?.code == .invalidData && "\($0)".contains("room 'r1' has an unknown membership")
        }
    }

    /// Reads the first row of `sql` on either engine's connection.
    static func readRow<T: Sendable>(
        _ sql: String,
        in store: any Store,
        _ read: @Sendable (any StoredRow) throws -> T
    ) async throws -> T {
        switch store {
        case let sqlite as SQLiteStore: try await sqlite.readRow(sql) { try read($0) }
        case let postgres as PostgresStore: try await postgres.readRow(sql) { try read($0) }
        default: preconditionFailure("no rows for \(type(of: store))")
        }
    }

    /// A PostgreSQL row parses integers and booleans from their text, reads NULL as 0 or false (as SQLite
    /// does), and refuses text that is neither.
    @Test func aPostgresRowRefusesTextThatIsNoIntegerOrBoolean() async throws {
        let store = try #require(try await StoreKind.postgres.makeStore() as? PostgresStore)
        let read = try await store.readRow("SELECT 42::bigint, true, NULL::bigint, NULL::boolean") { row in
            (try row.int64(0), try row.bool(1), try row.int64(2), try row.optionalInt64(2), try row.bool(3))
        }
        #expect(read == (42, true, 0, nil, false))
        await #expect { try await store.readRow("SELECT 'ten'") { try $0.int64(0) } } throws: {
            ($0 as? StoreError)?.code == .invalidData
        }
        await #expect { try await store.readRow("SELECT 'maybe'") { try $0.bool(0) } } throws: {
            ($0 as? StoreError)?.code == .invalidData
        }
    }
}

extension PostgresStore {
    /// Reads the first row of `sql` on the store's connection (tests).
    func readRow<T: Sendable>(_ sql: String, _ read: @Sendable (PostgresRow) throws -> T) throws -> T {
        try read(db.query(sql)[0])
    }
}

extension SQLiteStore {
    /// Reads the first row of `sql` on the store's connection (tests).
    func readRow<T: Sendable>(_ sql: String, _ read: @Sendable (SQLiteStatement) throws -> T) throws -> T {
        try db.withStatement(sql) { statement in
            guard try statement.step() else { throw StoreError(code: .invalidData, message: "no row for \(sql)") }
            return try read(statement)
        }
    }
}
