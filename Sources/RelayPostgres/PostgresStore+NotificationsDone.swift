import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    public func finishedNotificationCounts(_ ids: [UUID]) async throws -> [UUID: DeliveryCounts] {
        guard !ids.isEmpty else { return [:] }
        let rows = try db.query(
            """
            SELECT notification_id::text, status, count(*) FROM deliveries
            WHERE notification_id IN (SELECT jsonb_array_elements_text($1::jsonb)::uuid)
            GROUP BY notification_id, status
            """,
            try StoredValues.jsonList(Array(Set(ids.map(\.lowercasedString))))
        )
        var counts: [UUID: DeliveryCounts] = [:]
        for row in 0..<rows.count {
            guard let status = DeliveryStatus(rawValue: rows.string(row, 1)) else { continue }
            counts[try StoredValues.uuid(rows.string(row, 0)), default: DeliveryCounts()][status] = rows.int(row, 2)
        }
        return counts.filter { $0.value.pending == 0 }
    }
}
