import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// Unread counts in a room of 100,000: the counting queries walk indexes from each listed user, never a
/// room's members or the app's positions.
@Suite struct UnreadScaleTests {
    typealias F = StoreFixtures

    /// The counts' query plans on SQLite: each listed user's positions by the per-user index, each room's
    /// messages by a range of `room_messages_by_time` from the position.
    /// A level write of an app with a stream counts the user's other room levels by seeking the user, not by
    /// reading all of the app's (any user may make that write at its write rate).
    @Test func theRoomLevelCountSeeksTheUser() async throws {
        let store = try SQLiteStore.temporary()
        let plan = try await store.withConnection { db in
            try db.withStatement("EXPLAIN QUERY PLAN " + UserLimitsSQL.levelsElsewhereSQL(parameter: { "?\($0)" })) {
                row in
                var lines: [String] = []
                while try row.step() { lines.append(row.string(3)) }
                return lines
            }
        }
        #expect(
            plan.contains { $0.hasPrefix("SEARCH room_levels USING COVERING INDEX room_levels_by_user") },
            "\(plan)"
        )
    }

    @Test(arguments: [true, false]) func queryPlansSeekByUserAndRangeByTime(fromDitto: Bool) async throws {
        let store = try SQLiteStore.temporary()
        let plan = try await store.withConnection { db in
            try db.withStatement("EXPLAIN QUERY PLAN " + SQLiteStore.unreadSQL.totalsSQL(fromDitto: fromDitto)) { row in
                var lines: [String] = []
                while try row.step() { lines.append(row.string(3)) }
                return lines
            }
        }
        let positions =
            fromDitto
            ? "SEARCH x USING INDEX ditto_subscriptions_by_user (app_id=? AND user_id=?)"
            : "SEARCH x USING INDEX room_members_by_user (app_id=? AND user_id=?)"
        #expect(plan.contains(positions), "\(plan)")
        #expect(
            plan.contains(
                "SEARCH msg USING COVERING INDEX room_messages_by_time (app_id=? AND room_id=? AND created_at>?)"
            ),
            "\(plan)"
        )
        #expect(!plan.contains { $0.hasPrefix("SCAN") && !$0.contains("json_each") }, "\(plan)")
    }

    /// A badge app's claims of a 100,000-device room, each of whose members has 1,000 unread messages: prints
    /// the time a message takes to be accepted without cached totals and with them (each member's row moves
    /// by one), and a claim of 1,000 jobs without badges, with their cached totals, and the counting it
    /// replaces (no assertion on any time).
    @Test(arguments: StoreKind.allCases) func claimsOfAHundredThousandDeviceRoomCountTheirBadges(
        kind: StoreKind
    )
        async throws
    {
        let store = try await kind.makeStore(statementTimeout: StoreKind.largeStatementSeconds)
        await store.setUnreadPolicy(UnreadPolicy(badgeAppIds: ["app-a"]))
        try await F.seedRoom("big", devices: 100_000, in: store)
        try await Self.seedMessages(1000, room: "big", in: store)
        let clock = ContinuousClock()
        let uncachedMessage = try await clock.measure {
            _ = try await store.createNotification(
                F.notification(room: "big", sender: "user-1", at: F.time(2000)),
                recipients: .init(roomId: "big", excludeUserId: "user-1")
            )
        }
        try await Self.seedTotals(room: "big", in: store)
        let cachedMessage = try await clock.measure {
            _ = try await store.createNotification(
                F.notification(room: "big", sender: "user-1", at: F.time(2001)),
                recipients: .init(roomId: "big", excludeUserId: "user-1")
            )
        }
        await store.setUnreadPolicy(.none)
        var plain: [DeliveryJob] = []
        let without = try await clock.measure {
            plain = try await store.claimDueDeliveries(now: F.time(2001), limit: 1000, leaseSeconds: 30, owner: F.owner)
        }
        await store.setUnreadPolicy(UnreadPolicy(badgeAppIds: ["app-a"]))
        var badged: [DeliveryJob] = []
        let with = try await clock.measure {
            badged = try await store.claimDueDeliveries(
                now: F.time(2001),
                limit: 1000,
                leaseSeconds: 30,
                owner: F.owner
            )
        }
        let users = (2...1001).map { "user-\($0)" }
        var counted: [String: Int] = [:]
        let counting = try await clock.measure { counted = try await Self.count(users, in: store) }
        #expect(plain.count == 1000 && plain.allSatisfy { $0.badge == nil })
        // Each member has the 1,000 seeded messages and the two notifications' own.
        #expect(badged.count == 1000 && badged.allSatisfy { $0.badge == 1002 })
        #expect(counted.count == 1000 && counted.values.allSatisfy { $0 == 1002 })
        print(
            """
            [UnreadScaleTests] \(kind): a message took \(uncachedMessage) without cached totals, \(cachedMessage) \
            with 100,000; a claim of 1000 jobs took \(without) without badges, \(with) with cached totals; \
            counting those 1000 totals took \(counting)
            """
        )
    }

    /// Counts `users`' totals in app-a as claims did before the cache (``UnreadSQL/totalsSQL(fromDitto:)``).
    static func count(_ users: [String], in store: any Store) async throws -> [String: Int] {
        switch store {
        case let sqlite as SQLiteStore: try await sqlite.countTotals(users)
        case let postgres as PostgresStore: try await postgres.countTotals(users)
        default: preconditionFailure("no counting for \(type(of: store))")
        }
    }

    /// Caches the totals of `room`'s members after ``seedMessages(_:room:in:)`` and one notification of
    /// `user-1` (1,001 each, none for `user-1`), in one statement.
    static func seedTotals(room: String, in store: any Store) async throws {
        let sql = """
            INSERT INTO unread_totals (app_id, user_id, from_ditto, total)
            SELECT app_id, user_id, %@, CASE WHEN user_id = 'user-1' THEN 0 ELSE 1001 END FROM room_members
            WHERE app_id = 'app-a' AND room_id = '\(room)';
            """
        switch store {
        case let sqlite as SQLiteStore:
            try await sqlite.execute(sql.replacingOccurrences(of: "%@", with: "0"))
        case let postgres as PostgresStore:
            try await postgres.execute(sql.replacingOccurrences(of: "%@", with: "false") + " ANALYZE unread_totals;")
        default:
            preconditionFailure("no seeding for \(type(of: store))")
        }
    }

    /// `count` indexed messages of `user-1` in `room`, one a second from t0 + 1 s, in one statement.
    static func seedMessages(_ count: Int, room: String, in store: any Store) async throws {
        switch store {
        case let sqlite as SQLiteStore:
            try await sqlite.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                INSERT INTO room_messages (app_id, room_id, message_key, sender_id, created_at, archived)
                SELECT 'app-a', '\(room)', 'm-' || i, 'user-1', 1800000000000 + i * 1000, 0 FROM n;
                """
            )
        case let postgres as PostgresStore:
            try await postgres.execute(
                """
                INSERT INTO room_messages (app_id, room_id, message_key, sender_id, created_at, archived)
                SELECT 'app-a', '\(room)', 'm-' || i, 'user-1', 1800000000000 + i * 1000, false
                FROM generate_series(1, \(count)) AS i;
                ANALYZE room_messages;
                """
            )
        default:
            preconditionFailure("no seeding for \(type(of: store))")
        }
    }
}

extension SQLiteStore {
    /// ``countUnreadTotals(appId:userIds:)`` of app-a (tests).
    func countTotals(_ users: [String]) throws -> [String: Int] {
        try countUnreadTotals(appId: "app-a", userIds: users)
    }
}

extension PostgresStore {
    /// ``countUnreadTotals(appId:userIds:)`` of app-a (tests).
    func countTotals(_ users: [String]) throws -> [String: Int] {
        try countUnreadTotals(appId: "app-a", userIds: users)
    }
}
