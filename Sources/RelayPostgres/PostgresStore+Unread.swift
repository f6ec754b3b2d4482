import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// ``RelayStore/UnreadSQL`` in PostgreSQL's spelling.
    static let unreadSQL = UnreadSQL(
        parameter: { "$\($0)" },
        userIdsOfList: { "SELECT jsonb_array_elements_text(\($0)::jsonb)" },
        indexed: { _ in "" }
    )

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
