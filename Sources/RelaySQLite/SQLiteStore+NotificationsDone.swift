import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    /// Per notification: one probe for a pending delivery, from the newest id down (during a fan-out the last
    /// ones are claimed last, so the probe stops at once instead of walking the finished ones), and the
    /// count by status only once none is pending.
    public func finishedNotificationCounts(_ ids: [UUID]) async throws -> [UUID: DeliveryCounts] {
        var finished: [UUID: DeliveryCounts] = [:]
        try db.transaction {
            for id in Set(ids) {
                let run = try db.withStatement(
                    "SELECT first_delivery_id, last_delivery_id FROM notifications WHERE id = ?1"
                ) { row -> DeliveryRun? in
                    try row.bind(1, id.lowercasedString)
                    return try row.step() ? DeliveryRun(row, first: 0) : nil
                }
                guard let run, run.first != nil else { continue }
                let pending = try db.withStatement(
                    """
                    SELECT id FROM deliveries WHERE id BETWEEN ?1 AND ?2 AND status = 'pending'
                    ORDER BY id DESC LIMIT 1
                    """
                ) { row in
                    try run.bind(to: row, at: 1)
                    return try row.step()
                }
                guard !pending else { continue }
                let counts = try deliveryCounts(of: run)
                if counts.total > 0 { finished[id] = counts }
            }
        }
        return finished
    }

    /// The deliveries of `run` by status, counted in one pass (``RelayStore/DeliveryCounts/countColumns``).
    func deliveryCounts(of run: DeliveryRun) throws -> DeliveryCounts {
        try db.withStatement("SELECT \(DeliveryCounts.countColumns) FROM deliveries WHERE id BETWEEN ?1 AND ?2") {
            row in
            try run.bind(to: row, at: 1)
            return try row.step() ? DeliveryCounts(row: row) : DeliveryCounts()
        }
    }
}
