extension DeviceState {
    /// The columns ``counts(row:)`` reads, of one row over all of `devices`: a count per state, in the order of
    /// `allCases`, all counted in one pass over `devices` (grouped by state instead, SQLite sorts every
    /// device first, several times the work).
    package static let countColumns = allCases.map { "count(*) FILTER (WHERE state = '\($0.rawValue)')" }
        .joined(separator: ", ")

    /// The counts of a row that starts with ``countColumns``; a state this build does not know is in no
    /// count.
    package static func counts(row: some StoredRow) throws -> [DeviceState: Int] {
        var counts: [DeviceState: Int] = [:]
        for (column, state) in allCases.enumerated() { counts[state] = try row.int(column) }
        return counts
    }
}
