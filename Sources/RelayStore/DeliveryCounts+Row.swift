import Foundation

extension DeliveryCounts {
    /// The columns ``add(row:from:)`` reads, in its order, of `deliveries` grouped by status.
    package static let columns = "status, count(*)"

    /// Adds the count of a row whose columns from `first` on are ``columns``; a status this build does not
    /// know is left out.
    package mutating func add(row: some StoredRow, from first: Int = 0) throws {
        guard let status = DeliveryStatus(rawValue: row.string(first)) else { return }
        self[status] = try row.int(first + 1)
    }

    /// Every status's count as one row, in ``DeliveryStatus`` order (``init(row:from:)``): one pass over the
    /// deliveries, with no sort (SQLite sorts the rows of a GROUP BY first).
    package static let countColumns = DeliveryStatus.allCases
        .map { "count(*) FILTER (WHERE status = '\($0.rawValue)')" }
        .joined(separator: ", ")

    /// Reads a row whose columns from `first` on are ``countColumns``.
    package init(row: some StoredRow, from first: Int = 0) throws {
        self.init()
        for (offset, status) in DeliveryStatus.allCases.enumerated() { self[status] = try row.int(first + offset) }
    }
}
