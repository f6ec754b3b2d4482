import Foundation
import RelayCore

extension RoomMember {
    /// The columns ``init(row:)`` reads, in its order, of a `room_members` row that the statement names
    /// `table` (its name, or its alias): the member's own level for the room comes from `room_levels`.
    package static func columns(of table: String) -> String {
        """
        user_id, (SELECT l.level FROM room_levels AS l WHERE l.app_id = \(table).app_id
            AND l.room_id = \(table).room_id AND l.user_id = \(table).user_id), joined_at, origin
        """
    }

    /// A member from a row that starts with ``columns(of:)``.
    /// - Throws: ``StoreError`` `.invalidData` for a level or origin that is none.
    package init(row: some StoredRow) throws {
        guard let origin = Origin(rawValue: row.string(3)) else {
            throw StoreError(code: .invalidData, message: "member '\(row.string(0))' has an unknown origin")
        }
        self.init(
            userId: row.string(0),
            notify: try row.optionalString(1).map(StoredValues.level),
            joinedAt: try row.date(2),
            origin: origin
        )
    }
}
