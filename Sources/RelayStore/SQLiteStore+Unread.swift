import Foundation
import RelayCore

extension SQLiteStore {
    /// ``UnreadSQL`` in SQLite's spelling.
    static let unreadSQL = UnreadSQL(
        parameter: { "?\($0)" },
        userIdsOfList: { "SELECT value FROM json_each(\($0))" },
        indexed: { "INDEXED BY \($0)" }
    )

    public func setUnreadPolicy(_ policy: UnreadPolicy) async {
        unreadPolicy = policy
    }

    public func markRead(appId: String, roomId: String, userId: String, at: Date) async throws -> Date? {
        let rule = badgeUpdateRule(now: now)
        return try db.transaction {
            try rule.moving(appId: appId, userId: userId) {
                try db.withStatement(Self.unreadSQL.markReadSQL) { statement -> Date? in
                    try statement.bind(1, appId)
                    try statement.bind(2, roomId)
                    try statement.bind(3, userId)
                    try statement.bind(4, at)
                    guard try statement.step() else { return nil }
                    let position = statement.date(0)
                    try statement.run()
                    return position
                }
            }
        }
    }

    public func unreadCounts(appId: String, userId: String, roomLimit: Int) async throws -> UnreadCounts {
        let fromDitto = unreadPolicy.dittoAppIds.contains(appId)
        let users = try StoredValues.jsonList([userId])
        return try db.withStatement(Self.unreadSQL.roomsSQL(fromDitto: fromDitto)) { row in
            try row.bind(1, appId)
            try row.bind(2, users)
            try row.bind(3, max(1, roomLimit))
            var counts = UnreadCounts()
            while try row.step() {
                counts.rooms[row.string(0)] = row.int(1)
                counts.total = row.int(2)
            }
            return counts
        }
    }

    /// Each of `userIds`' unread total in `appId` (0 for a user with none), for the badges of a claim.
    func unreadTotals(appId: String, userIds: [String]) throws -> [String: Int] {
        let fromDitto = unreadPolicy.dittoAppIds.contains(appId)
        return try db.withStatement(Self.unreadSQL.totalsSQL(fromDitto: fromDitto)) { row in
            try row.bind(1, appId)
            try row.bind(2, try StoredValues.jsonList(userIds))
            var totals: [String: Int] = [:]
            while try row.step() { totals[row.string(0)] = row.int(1) }
            return totals
        }
    }

    public func deleteIndexedMessages(before: Date, limit: Int) async throws -> Int {
        try db.transaction {
            try db.withStatement(Self.unreadSQL.deleteOldMessagesSQL) {
                try $0.bind(1, before)
                try $0.bind(2, limit)
                try $0.run()
                return db.changes
            }
        }
    }

    /// Adds `message` to its room's index (``UnreadSQL/indexMessageSQL``), inside the caller's transaction.
    static func indexMessage(appId: String, _ message: IndexedMessage, in db: SQLiteConnection) throws {
        try db.withStatement(Self.unreadSQL.indexMessageSQL) {
            try $0.bind(1, appId)
            try $0.bind(2, message.roomId)
            try $0.bind(3, message.key)
            try $0.bind(4, message.senderId)
            try $0.bind(5, message.createdAt)
            try $0.bind(6, message.isArchived)
            try $0.bind(7, message.replacedKey)
            try $0.run()
        }
    }
}
