import Foundation
import RelayStore

extension PostgresStore {
    /// One read over the pending deliveries by app (`deliveries_due`), then one over the live leases, each
    /// joined to the range of `deliveries_due` its run covers (as the SQLite store counts them).
    public func outboxCounts(now: Date) async throws -> [String: OutboxCounts] {
        var counts: [String: OutboxCounts] = [:]
        let pending = try db.query(
            """
            SELECT app_id, count(*), count(*) FILTER (WHERE next_attempt_at <= $1), 0,
                min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1)
            FROM deliveries WHERE status = 'pending' GROUP BY app_id
            """,
            now
        )
        for row in pending.all { counts[row.string(0)] = try OutboxCounts(row: row, from: 1) }
        let leased = try db.query(LeaseSQL.leasedByAppSQL(now: "$1"), now)
        counts.setLeased(Dictionary(uniqueKeysWithValues: try leased.all.map { ($0.string(0), try $0.int(1)) }))
        return counts
    }
}
