import Foundation
import RelayCore

extension SQLiteStore {
    public func finishedNotificationCounts(_ ids: [UUID]) async throws -> [UUID: DeliveryCounts] {
        var finished: [UUID: DeliveryCounts] = [:]
        try db.transaction {
            for id in Set(ids) {
                var counts = DeliveryCounts()
                try db.withStatement(
                    """
                    SELECT d.status, count(*) FROM notifications n
                    JOIN deliveries d ON d.id BETWEEN n.first_delivery_id AND n.last_delivery_id
                    WHERE n.id = ?1 GROUP BY d.status
                    """
                ) { row in
                    try row.bind(1, id.lowercasedString)
                    while try row.step() {
                        if let status = DeliveryStatus(rawValue: row.string(0)) { counts[status] = row.int(1) }
                    }
                }
                if counts.total > 0 && counts.pending == 0 { finished[id] = counts }
            }
        }
        return finished
    }
}
