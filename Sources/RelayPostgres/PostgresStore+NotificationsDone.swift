import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// One statement: each notification asked about is probed for a pending delivery from its newest id down
    /// in `deliveries_pending_by_notification` (during a fan-out the last ones are claimed last, so the probe
    /// stops at once instead of walking the finished ones), and only those with none are counted by status.
    /// The probe is a scalar subquery, run once per notification whatever the table's statistics say (right
    /// after a fan-out's insert they say the notification has a handful of rows, and a join plan would sort
    /// them all); the counts are a lateral subquery, one row per notification
    /// (``RelayStore/DeliveryCounts/countColumns``), so each is a range of the primary key however many rows
    /// the statistics expect. A notification without deliveries is left out.
    public func finishedNotificationCounts(_ ids: [UUID]) async throws -> [UUID: DeliveryCounts] {
        guard !ids.isEmpty else { return [:] }
        let rows = try db.query(
            prepared: Self.finishedCountsSQL,
            try StoredValues.jsonList(Array(Set(ids.map(\.lowercasedString))))
        )
        var counts: [UUID: DeliveryCounts] = [:]
        for row in rows.all {
            let counted = try DeliveryCounts(row: row, from: 1)
            if counted.total > 0 { counts[try row.uuid(0)] = counted }
        }
        return counts
    }

    /// ``finishedNotificationCounts(_:)``'s statement: $1 the notification ids, a JSON array.
    static let finishedCountsSQL = """
        WITH asked AS (SELECT DISTINCT jsonb_array_elements_text($1::jsonb)::uuid AS id),
        done AS (
            SELECT a.id FROM asked AS a
            WHERE (
                SELECT true FROM deliveries AS d WHERE d.notification_id = a.id AND d.status = 'pending'
                ORDER BY d.notification_id DESC, d.id DESC LIMIT 1
            ) IS NULL
        )
        SELECT n.id::text, c.* FROM done JOIN notifications AS n ON n.id = done.id
        CROSS JOIN LATERAL (
            SELECT \(DeliveryCounts.countColumns) FROM deliveries AS d
            WHERE \(NotificationDeliveriesSQL.of("n", delivery: "d"))
        ) AS c
        """
}
