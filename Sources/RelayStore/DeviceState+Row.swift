extension DeviceState {
    /// The columns ``counts(row:)`` reads, of one row over all of `devices`: a count per state
    /// (``CaseCounts``).
    package static let countColumns = CaseCounts.columns(Self.self, of: "state")

    /// The counts of a row that starts with ``countColumns``.
    package static func counts(row: some StoredRow) throws -> [DeviceState: Int] {
        Dictionary(uniqueKeysWithValues: try CaseCounts.read(Self.self, row: row))
    }
}
