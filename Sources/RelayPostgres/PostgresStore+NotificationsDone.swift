import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// One statement: each notification asked about is probed for a pending delivery
    /// (``NotificationDeliveriesSQL/newestPending(of:)``), and only those with none are counted by status.
    /// The probe is a scalar subquery, run once per notification; the counts are a lateral subquery, one row
    /// per notification (``RelayStore/DeliveryCounts/countColumns``), so each is a range of the primary key
    /// however many rows the statistics expect. A notification without deliveries is left out. The statement
    /// is prepared and planned only in a transaction that reads index ranges in order (``seekingOnly(_:)``): with
    /// the statistics of a fan-out's first seconds, which make its range look small, a free plan reads the
    /// whole range and sorts it at each probe instead of stopping at its end.
    public func finishedNotificationCounts(_ ids: [UUID]) async throws -> [UUID: DeliveryCounts] {
        guard !ids.isEmpty else { return [:] }
        let asked = try StoredValues.jsonList(Array(Set(ids.map(\.lowercasedString))))
        let rows = try seekingOnly { try db.query(prepared: Self.finishedCountsSQL, asked) }
        var counts: [UUID: DeliveryCounts] = [:]
        for row in rows.all {
            let counted = try DeliveryCounts(row: row, from: 1)
            if counted.total > 0 { counts[try row.uuid(0)] = counted }
        }
        return counts
    }

    /// ``finishedNotificationCounts(_:)``'s statement: $1 the notification ids, a JSON array.
    static let finishedCountsSQL = """
        WITH asked AS (SELECT DISTINCT jsonb_array_elements_text($1::jsonb)::uuid AS id)
        SELECT n.id::text, c.* FROM asked JOIN notifications AS n ON n.id = asked.id
        CROSS JOIN LATERAL (
            SELECT \(DeliveryCounts.countColumns) FROM deliveries AS d
            WHERE \(NotificationDeliveriesSQL.of("n", delivery: "d"))
        ) AS c
        WHERE \(NotificationDeliveriesSQL.newestPending(of: "n")) IS NULL
        """
}
