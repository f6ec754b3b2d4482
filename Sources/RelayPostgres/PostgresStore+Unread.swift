import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// ``RelayStore/UnreadSQL`` in PostgreSQL's spelling. A list's user ids are read by position
    /// (``elementsOfList(_:)``), so the planner knows how many there are.
    static let unreadSQL = UnreadSQL(
        parameter: { "$\($0)" },
        userIdsOfList: { elementsOfList($0) },
        indexed: { _ in "" }
    )

    /// A query of one text column: the elements of the JSON array in parameter `parameter` (e.g. `$2`), in
    /// order, each element `i` read by position. The statement's parameters are known when it is planned
    /// (an unnamed statement), so `generate_series` tells the planner the list's true length; with
    /// `jsonb_array_elements_text` it assumes 100 elements, and for a list of one user it would rather
    /// read every row of the app (a hash join) than look the user up in an index.
    static func elementsOfList(_ parameter: String) -> String {
        "SELECT \(parameter)::jsonb ->> i FROM generate_series(0, jsonb_array_length(\(parameter)::jsonb) - 1) AS i"
    }

    public func setUnreadPolicy(_ policy: UnreadPolicy) async {
        unreadPolicy = policy
    }

    public func markRead(appId: String, roomId: String, userId: String, at: Date) async throws -> Date? {
        let rule = badgeUpdateRule(now: now)
        return try db.transaction {
            try rule.moving(appId: appId, userId: userId) {
                let rows = try db.query(Self.unreadSQL.markReadSQL, appId, roomId, userId, at)
                return try rows.count > 0 ? rows[0].date(0) : nil
            }
        }
    }

    public func unreadCounts(appId: String, userId: String, roomLimit: Int) async throws -> UnreadCounts {
        let fromDitto = unreadPolicy.dittoAppIds.contains(appId)
        let rows = try db.query(
            Self.unreadSQL.roomsSQL(fromDitto: fromDitto),
            appId,
            try StoredValues.jsonList([userId]),
            max(1, roomLimit)
        )
        var counts = UnreadCounts()
        for row in rows.all { try counts.add(row: row) }
        return counts
    }
}
