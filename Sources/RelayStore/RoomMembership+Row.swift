import RelayCore

extension RoomMembership {
    /// The columns ``init(row:roomId:)`` reads of a `rooms` row.
    package static let columns = "membership"

    /// A room's membership from a row that starts with ``columns``.
    /// - Throws: ``StoreError`` `.invalidData`, naming `roomId`, for a membership that is none.
    package init(row: some StoredRow, roomId: String) throws {
        guard let membership = RoomMembership(rawValue: row.string(0)) else {
            throw StoreError(code: .invalidData, message: "room '\(roomId)' has an unknown membership")
        }
        self = membership
    }
}
