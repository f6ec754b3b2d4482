import Foundation

extension UnreadCounts {
    /// Adds a row of ``UnreadSQL/roomsSQL(fromDitto:)``: a room id, its unread messages and the user's total.
    package mutating func add(row: some StoredRow) throws {
        rooms[row.string(0)] = try row.int(1)
        total = try row.int(2)
    }
}
