import Foundation

extension DeliveryCounts {
    /// Every status's count as one row, in ``DeliveryStatus`` order (``init(row:from:)``): one pass over the
    /// deliveries, on both engines; a status this build does not know is left out. (A GROUP BY status would
    /// have SQLite sort the rows first.)
    package static let countColumns = DeliveryStatus.allCases
        .map { "count(*) FILTER (WHERE status = '\($0.rawValue)')" }
        .joined(separator: ", ")

    /// Reads a row whose columns from `first` on are ``countColumns``.
    package init(row: some StoredRow, from first: Int = 0) throws {
        self.init()
        for (offset, status) in DeliveryStatus.allCases.enumerated() { self[status] = try row.int(first + offset) }
    }
}
