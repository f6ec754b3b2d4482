import Foundation

extension OutboxCounts {
    /// An app's counts from a row whose columns from `first` on are its pending, due and leased deliveries
    /// (integers) and its oldest due time (epoch MILLISECONDS, NULL when none is due). Each engine counts
    /// them in its own SQL.
    package init(row: some StoredRow, from first: Int = 0) throws {
        self.init(
            pending: try row.int(first),
            due: try row.int(first + 1),
            leased: try row.int(first + 2),
            oldestDueAt: try row.optionalDate(first + 3)
        )
    }
}

extension [String: OutboxCounts] {
    /// Sets each app's leased deliveries to `leased` (pending deliveries a live lease's run covers, by app)
    /// and takes them out of its due ones: both engines first count every due delivery, then the leased.
    package mutating func setLeased(_ leased: [String: Int]) {
        for (app, count) in leased {
            guard var counts = self[app] else { continue }
            counts.leased = count
            counts.due = Swift.max(0, counts.due - count)
            self[app] = counts
        }
    }
}
