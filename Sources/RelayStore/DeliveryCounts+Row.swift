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
}
