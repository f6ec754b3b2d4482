extension DeviceState {
    /// The columns ``addCount(row:to:)`` reads, in its order, of `devices` grouped by state.
    package static let countColumns = "state, count(*)"

    /// Every state counted at zero: ``Store/deviceCounts()`` before any row is added.
    package static var zeroCounts: [DeviceState: Int] {
        Dictionary(uniqueKeysWithValues: allCases.map { ($0, 0) })
    }

    /// Adds to `counts` the count of a row that starts with ``countColumns``; a state this build does not
    /// know is left out.
    package static func addCount(row: some StoredRow, to counts: inout [DeviceState: Int]) throws {
        guard let state = DeviceState(rawValue: row.string(0)) else { return }
        counts[state] = try row.int(1)
    }
}
