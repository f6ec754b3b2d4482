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
