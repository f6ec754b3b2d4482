import Foundation
import RelayStore

/// One row of a ``PostgresRows``, read as a ``RelayStore/StoredRow`` (text format: integers and booleans
/// are parsed from their text). Not `Sendable`, like the result it reads.
struct PostgresRow: StoredRow {
    let rows: PostgresRows
    /// The row's index in ``rows``.
    let index: Int

    func isNull(_ column: Int) -> Bool { rows.isNull(index, column) }

    func string(_ column: Int) -> String { rows.string(index, column) }

    /// The column's integer; 0 when NULL (as SQLite reads it).
    func int64(_ column: Int) throws(StoreError) -> Int64 {
        if isNull(column) { return 0 }
        guard let value = Int64(string(column)) else {
            throw StoreError(code: .invalidData, message: "column \(column) holds no integer")
        }
        return value
    }

    /// A `boolean` column (`t` or `f`); false when NULL.
    func bool(_ column: Int) throws(StoreError) -> Bool {
        if isNull(column) { return false }
        switch string(column) {
        case "t": return true
        case "f": return false
        default: throw StoreError(code: .invalidData, message: "column \(column) holds no boolean")
        }
    }
}

extension PostgresRows {
    /// Row `index` (from 0, below ``count``).
    subscript(index: Int) -> PostgresRow { PostgresRow(rows: self, index: index) }

    /// Every row, in order.
    var all: [PostgresRow] { (0..<count).map { self[$0] } }
}
