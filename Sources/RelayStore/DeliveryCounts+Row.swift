import Foundation

extension DeliveryCounts {
    /// Every status's count as one row (``init(row:from:)``): a count per status of the deliveries
    /// (``CaseCounts``).
    package static let countColumns = CaseCounts.columns(DeliveryStatus.self, of: "status")

    /// Reads a row whose columns from `first` on are ``countColumns``.
    package init(row: some StoredRow, from first: Int = 0) throws {
        self.init()
        for (status, count) in try CaseCounts.read(DeliveryStatus.self, row: row, from: first) { self[status] = count }
    }
}
