import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// A notification's deliveries on PostgreSQL are the range of ids its row keeps, filtered by notification
/// (``RelayPostgres/NotificationDeliveriesSQL``): what reads or deletes them by notification seeks the
/// primary key, and never takes another notification's deliveries whose ids lie in the range.
@Suite struct PostgresNotificationRangeTests {
    typealias F = StoreFixtures

    /// Accepting a webhook records the first and last id of its deliveries, as the insert answers them; one
    /// that reaches no device records none. While one is pending, the notification is not counted as finished.
    @Test func aNotificationKeepsTheRangeOfItsDeliveries() async throws {
        let store = try await PostgresStoreTests.newStore()
        for n in 0..<3 { try await store.register(F.token(n), user: "u\(n)") }
        let first = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let second = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let none = try await store.createNotification(F.notification(room: "empty"), recipients: .init(roomId: "empty"))
        #expect(try await store.range(of: first.notificationId) == "1|3")
        #expect(try await store.range(of: second.notificationId) == "4|6")
        #expect(try await store.range(of: none.notificationId) == "|")
        #expect(try await store.finishedNotificationCounts([first.notificationId]).isEmpty)
    }

    /// The finished probe, planned as the store plans it, with the statistics of an empty outbox (as in a
    /// fan-out's first seconds): it reads a pending notification's range backward from its end and stops at
    /// the first row; the counts are never read. Retention's probe reads the ranges the same way.
    @Test func theFinishedProbeStopsAtTheNewestPendingDelivery() async throws {
        let store = try await PostgresStoreTests.newStore()
        try await store.execute(
            """
            ANALYZE notifications, deliveries;
            \(Self.notifications(100, deliveriesEach: 200, status: "pending"))
            """
        )
        let asked = try StoredValues.jsonList([try Self.id(0x50).lowercasedString])
        let probe = try await store.analyzeSeekingOnly(PostgresStore.finishedCountsSQL, asked)
        let scan = probe.split(separator: "\n").filter { $0.contains("Scan") && $0.contains("on deliveries") }
        #expect(scan.count == 2, "\(probe)")
        #expect(scan.first?.contains("Index Scan Backward using deliveries_pkey") == true, "\(probe)")
        #expect(scan.first?.contains(/actual rows=1(\.00)? loops=1\)/) == true, "\(probe)")
        #expect(scan.last?.contains("never executed") == true, "\(probe)")
        #expect(try await store.finishedNotificationCounts([try Self.id(0x50)]).isEmpty)

        let before = Date(timeIntervalSince1970: 0.030)
        let retention = try await store.analyzeSeekingOnly(PostgresStore.finishedBeforeSQL, before, 20)
        #expect(retention.contains("Index Scan Backward using deliveries_pkey"), "\(retention)")
        #expect(!retention.contains("Bitmap"), "\(retention)")
        #expect(try await store.deleteFinishedNotifications(createdBefore: before, limit: 20) == 0)
    }

    /// A database the schema steps before the ranges left gets each notification's range from its deliveries,
    /// interleaved or none, and the index by notification goes.
    @Test func migratingRecordsEachNotificationsRange() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let step = try #require(PostgresMigrations.steps.firstIndex { $0.contains("ADD COLUMN first_delivery_id") })
        let db = try PostgresMigrations.database(at: url, version: step)
        let (a, b, c) = (try Self.id(0xa), try Self.id(0xb), try Self.id(0xc))
        try db.execute(
            """
            INSERT INTO notifications (id, app_id, kind, room_id, sender_id, topic, created_at)
            SELECT id, 'app-a', 'message', 'room-1', 's', 't', 1 FROM unnest(ARRAY['\(a)', '\(b)', '\(c)']::uuid[]) AS id;
            INSERT INTO deliveries (notification_id, app_id, user_id, token, next_attempt_at)
            SELECT (CASE WHEN n % 2 = 0 THEN '\(a)' ELSE '\(b)' END)::uuid, 'app-a', 'u' || n, 't' || n, 0
            FROM generate_series(1, 6) AS n;
            """
        )
        let store = try PostgresStore(url: url, logger: .disabled())
        #expect(try await store.range(of: a) == "2|6")
        #expect(try await store.range(of: b) == "1|5")
        #expect(try await store.range(of: c) == "|")
        let view = try #require(try await store.notification(appId: "app-a", id: a, limit: 10, offset: 0))
        #expect(view.deliveries.map(\.deliveryId) == [2, 4, 6])
        #expect(try await store.rowCount("pg_indexes WHERE indexname = 'deliveries_by_notification'") == 0)
    }

    /// Two notifications whose ranges hold each other's deliveries, as when their inserts drew ids at the same
    /// time: the view, the counts, the duplicate's count, the finished counts and retention each take only
    /// the notification's own.
    @Test func readsAndDeletesByNotificationTakeOnlyItsOwnDeliveries() async throws {
        let store = try await PostgresStoreTests.newStore()
        for n in 0..<3 { try await store.register(F.token(n), user: "u\(n)") }
        let early = F.notification(at: F.time(-100))
        let a = try await store.createNotification(early, recipients: .init(roomId: "room-1")).notificationId
        let b = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            .notificationId
        try await store.execute("UPDATE notifications SET first_delivery_id = 1, last_delivery_id = 6")

        let view = try #require(try await store.notification(appId: "app-a", id: a, limit: 10, offset: 0))
        #expect(view.deliveries.map(\.deliveryId) == [1, 2, 3])
        #expect(view.summary.counts == DeliveryCounts(pending: 3, sent: 0, failed: 0, retired: 0))
        #expect(try await store.deliveryCount(of: b) == 3)

        try await store.complete((1...3).map { (Int64($0), DeliveryOutcome.sent) }, at: F.t0)
        #expect(try await store.finishedNotificationCounts([a, b]) == [a: DeliveryCounts(pending: 0, sent: 3)])
        #expect(try await store.deleteFinishedNotifications(createdBefore: F.time(10), limit: 10) == 1)
        #expect(try await store.rowCount("deliveries") == 3)
        let left = try #require(try await store.notification(appId: "app-a", id: b, limit: 10, offset: 0))
        #expect(left.deliveries.map(\.deliveryId) == [4, 5, 6])
    }

    /// Among many notifications' deliveries, with statistics, a notification's page and retention's delete
    /// seek the primary key by range: neither reads the whole table.
    @Test func readsAndDeletesByNotificationSeekThePrimaryKey() async throws {
        let store = try await PostgresStoreTests.newStore()
        try await store.execute(
            """
            \(Self.notifications(100, deliveriesEach: 200, status: "sent"))
            ANALYZE notifications, deliveries;
            """
        )
        let id = try Self.id(0x50)
        let page = try await store.plan(PostgresStore.deliveriesPageSQL, id, 10, 0)
        #expect(!page.contains("Seq Scan on deliveries") && page.contains("deliveries_pkey"), "\(page)")
        let retention = try await store.plan(PostgresStore.deleteDeliveriesSQL, id)
        #expect(!retention.contains("Seq Scan on deliveries") && retention.contains("deliveries_pkey"), "\(retention)")
        #expect(
            try await store.deleteFinishedNotifications(createdBefore: Date(timeIntervalSince1970: 0.030), limit: 20)
                == 20
        )
        #expect(try await store.rowCount("deliveries") == 20000 - 20 * 200)
        #expect(try await store.rowCount("notifications") == 80)
    }
}

extension PostgresNotificationRangeTests {
    /// Statements that insert `count` notifications of the app whose id is 'app' (ids ending in 1 to `count`,
    /// in decimal digits; created at 1 to `count` milliseconds), each with a range of `deliveriesEach`
    /// deliveries of `status`, in id order.
    static func notifications(_ count: Int, deliveriesEach: Int, status: String) -> String {
        """
        INSERT INTO notifications (id, app_id, kind, room_id, sender_id, topic, created_at)
        SELECT ('00000000-0000-0000-0000-' || lpad(n::text, 12, '0'))::uuid, 'app', 'message', 'r', 's', 't', n
        FROM generate_series(1, \(count)) AS n;
        INSERT INTO deliveries (notification_id, app_id, user_id, token, status, next_attempt_at)
        SELECT ('00000000-0000-0000-0000-' || lpad((1 + (n - 1) / \(deliveriesEach))::text, 12, '0'))::uuid, 'app',
            'u' || n, 't' || n, '\(status)', 0
        FROM generate_series(1, \(count * deliveriesEach)) AS n;
        UPDATE notifications SET first_delivery_id = (right(id::text, 12)::bigint - 1) * \(deliveriesEach) + 1,
            last_delivery_id = right(id::text, 12)::bigint * \(deliveriesEach);
        """
    }

    /// A notification id ending in `n`.
    static func id(_ n: Int) throws -> UUID {
        try #require(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012x", n)))
    }
}

extension PostgresStore {
    /// Notification `id`'s first and last delivery id as `first|last` (empty when NULL).
    fileprivate func range(of id: UUID) throws -> String {
        let row = try db.query("SELECT first_delivery_id, last_delivery_id FROM notifications WHERE id = $1", id)[0]
        return [0, 1].map { row.isNull($0) ? "" : row.string($0) }.joined(separator: "|")
    }
}
