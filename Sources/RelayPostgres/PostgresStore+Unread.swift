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
                return rows.count > 0 ? rows.date(0, 0) : nil
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
        for row in 0..<rows.count {
            counts.rooms[rows.string(row, 0)] = rows.int(row, 1)
            counts.total = rows.int(row, 2)
        }
        return counts
    }

    /// Each of `userIds`' unread total in `appId` (0 for a user with none), for the badges of a claim.
    func unreadTotals(appId: String, userIds: [String]) throws -> [String: Int] {
        let fromDitto = unreadPolicy.dittoAppIds.contains(appId)
        let rows = try db.query(
            Self.unreadSQL.totalsSQL(fromDitto: fromDitto),
            appId,
            try StoredValues.jsonList(userIds)
        )
        var totals: [String: Int] = [:]
        for row in 0..<rows.count { totals[rows.string(row, 0)] = rows.int(row, 1) }
        return totals
    }

    public func deleteIndexedMessages(before: Date, limit: Int) async throws -> Int {
        try db.query(Self.unreadSQL.deleteOldMessagesSQL, before, limit).changed
    }

    /// Adds `message` to its room's index (``RelayStore/UnreadSQL/indexMessageSQL``), inside the caller's
    /// transaction.
    static func indexMessage(appId: String, _ message: IndexedMessage, in db: PostgresConnection) throws {
        try db.query(
            unreadSQL.indexMessageSQL,
            appId,
            message.roomId,
            message.key,
            message.senderId,
            message.createdAt,
            message.isArchived,
            message.replacedKey
        )
    }
}
