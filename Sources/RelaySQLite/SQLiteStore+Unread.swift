import Foundation
import RelayCore
import RelayStore

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
            while try row.step() { try counts.add(row: row) }
            return counts
        }
    }
}
