/// A count per case of an enum stored as its raw value, in one row: the columns and their reading. The rows
/// are counted in one pass on both engines (grouped by the column instead, SQLite sorts the rows first).
package enum CaseCounts {
    /// `count(*) FILTER (WHERE column = 'raw value')` for each case of `Value`, in `allCases` order.
    package static func columns<Value: CaseIterable & RawRepresentable>(_: Value.Type, of column: String) -> String
    where Value.RawValue == String {
        Value.allCases.map { "count(*) FILTER (WHERE \(column) = '\($0.rawValue)')" }.joined(separator: ", ")
    }

    /// Each case's count, from a row whose columns from `first` on are ``columns(_:of:)``; a value this
    /// build does not know is in no count.
    package static func read<Value: CaseIterable>(
        _: Value.Type,
        row: some StoredRow,
        from first: Int = 0
    ) throws -> [(Value, Int)] {
        try Value.allCases.enumerated().map { offset, value in (value, try row.int(first + offset)) }
    }
}
