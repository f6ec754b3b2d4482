import Foundation
import RelayStore

extension SQLiteStore {
    /// Two reads, between which no write of this store's actor runs: the pending deliveries by app over
    /// `deliveries_due` (app, due time: the index holds every column read), and the pending deliveries the
    /// live lease runs cover (a run is one app and due time, a range of ids).
    public func outboxCounts(now: Date) async throws -> [String: OutboxCounts] {
        var counts: [String: OutboxCounts] = [:]
        // Until the leases are read, `due` counts the leased due deliveries too and `leased` is 0.
        try db.withStatement(
            """
            SELECT app_id, count(*), sum(next_attempt_at <= ?1), 0,
                min(CASE WHEN next_attempt_at <= ?1 THEN next_attempt_at END)
            FROM deliveries WHERE status = 'pending' GROUP BY app_id
            """
        ) { row in
            try row.bind(1, now)
            while try row.step() { counts[row.string(0)] = try OutboxCounts(row: row, from: 1) }
        }
        let leasedSQL = LeaseSQL.leasedByAppSQL(now: "?1", deliveries: "deliveries AS d INDEXED BY deliveries_due")
        try db.withStatement(leasedSQL) { row in
            try row.bind(1, now)
            var leased: [String: Int] = [:]
            while try row.step() { leased[row.string(0)] = row.int(1) }
            counts.setLeased(leased)
        }
        return counts
    }
}
