import Foundation
import RelayStore

extension PostgresStore {
    /// One read over the pending deliveries by app (`deliveries_due`); a delivery is leased while its
    /// `lease_until` is at or after `now`.
    public func outboxCounts(now: Date) async throws -> [String: OutboxCounts] {
        let rows = try db.query(
            """
            SELECT app_id, count(*),
                count(*) FILTER (WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)),
                count(*) FILTER (WHERE lease_until >= $1),
                min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1)
            FROM deliveries WHERE status = 'pending' GROUP BY app_id
            """,
            now
        )
        var counts: [String: OutboxCounts] = [:]
        for row in rows.all {
            counts[row.string(0)] = try OutboxCounts(row: row, from: 1)
        }
        return counts
    }
}
