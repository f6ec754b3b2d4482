import Foundation
import RelayTestSupport
import Testing

@testable import RelayPostgres

/// A webhook to a big room on PostgreSQL reads each recipient's rows by the recipient's id, whether or not
/// the tables were analyzed: on a new database just filled (no statistics yet), or one analyzed while small,
/// no plan node handles the room's members times the app's devices (the fan-out's insert) or times the
/// sender's push counts (its rate limit), as a nested loop reading the whole set per member would, which made
/// the webhooks to a room of a few thousand members time out until autovacuum came.
@Suite struct FanOutPlanTests {
    @Test(arguments: [true, false]) func aRoomsDevicesAreReadByMember(analyzed: Bool) async throws {
        let store = try PostgresStore(url: try await PostgresCluster.shared().newDatabaseURL(), logger: .disabled())
        try await store.seedRoomRows(3000, analyzing: analyzed ? ["devices", "room_members"] : [])
        // $1 app, $2 due, $3 room, $4 excluded user, $5 excluded token, $6 topic, $7 notification, $8 the
        // room whose levels apply, $9 direct, $10 mentions: as text, which the statement casts.
        let parameters = [
            "app-a", "1800000000000", "room-1", "user-1", "none", "com.example.chat", UUID().uuidString, "room-1",
            "false", "[]",
        ]
        let sql = PostgresStore.insertDeliveriesSQL(explicitRecipients: false)
        let rows = try await store.mostRowsOfAPlanNode(sql, parameters)
        #expect(rows <= 6000, "\(rows)")
        #expect(try await store.rowCount("deliveries") == 2999)
    }

    /// The per-recipient push counts of a webhook to a big room seek each recipient's row, whether the table
    /// has statistics or had them taken while it was small.
    @Test(arguments: [true, false]) func aWebhooksPushCountsSeekEachRecipient(analyzed: Bool) async throws {
        let store = try PostgresStore(url: try await PostgresCluster.shared().newDatabaseURL(), logger: .disabled())
        try await store.execute(
            """
            \(analyzed ? "ANALYZE rate_pushes;" : "")
            INSERT INTO rate_pushes (app_id, sender_id, recipient_id, minute, pushes)
            SELECT 'app-a', 'user-1', 'user-' || i, 29000000, 1 FROM generate_series(1, 3000) AS i;
            """
        )
        let recipients = "[" + (1...3000).map { "\"user-\($0)\"" }.joined(separator: ",") + "]"
        let rows = try await store.mostRowsOfAPlanNode(
            PostgresStore.pushCountsSQL,
            ["app-a", "user-1", "29000000", recipients]
        )
        #expect(rows <= 6000, "\(rows)")
    }
}
