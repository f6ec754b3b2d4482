import Foundation
import RelayCore
import RelayStore

/// The cached unread totals (``RelayStore/UnreadSQL`` `+Totals`) on PostgreSQL: each call runs inside the
/// caller's transaction, so a total changes with what changes it.
extension PostgresStore {
    /// Recounts `userIds`' cached totals in `appId` from the current policy's source: a user with a live
    /// device gets its row, a user without has none.
    func refreshUnreadTotals(appId: String, userIds: [String]) throws {
        try Self.refreshUnreadTotals(appId: appId, userIds: userIds, policy: unreadPolicy, in: db)
    }

    /// ``refreshUnreadTotals(appId:userIds:)`` over `db` with `policy`, the users' cached rows locked first
    /// (``RelayStore/UnreadSQL/lockTotalsSQL``); nothing for an app whose totals are not kept.
    static func refreshUnreadTotals(
        appId: String,
        userIds: [String],
        policy: UnreadPolicy,
        in db: PostgresConnection
    ) throws {
        let users = Array(Set(userIds)).sorted()
        guard !users.isEmpty, policy.keepsTotals(appId: appId) else { return }
        let list = try StoredValues.jsonList(users)
        let fromDitto = policy.dittoAppIds.contains(appId)
        try db.query(unreadSQL.lockTotalsSQL, appId, list)
        try db.query(unreadSQL.dropTotalsSQL, appId, list)
        try db.query(unreadSQL.refreshTotalsSQL(fromDitto: fromDitto), appId, list, fromDitto)
    }

    /// Each of `userIds`' unread total in `appId` (0 for a user with none), for the badges of a claim
    /// (``RelayStore/UnreadTotalsLookup``).
    func unreadTotals(appId: String, userIds: [String]) throws -> [String: Int] {
        let fromDitto = unreadPolicy.dittoAppIds.contains(appId)
        return try UnreadTotalsLookup.totals(
            of: userIds,
            cached: { try cachedUnreadTotals(appId: appId, userIds: $0, fromDitto: fromDitto) },
            refresh: { try refreshUnreadTotals(appId: appId, userIds: $0) },
            count: { try countUnreadTotals(appId: appId, userIds: $0) }
        )
    }

    /// The cached totals of `userIds` counted from the source `fromDitto` names.
    private func cachedUnreadTotals(appId: String, userIds: [String], fromDitto: Bool) throws -> [String: Int] {
        let rows = try db.query(Self.unreadSQL.cachedTotalsSQL, appId, try StoredValues.jsonList(userIds), fromDitto)
        var totals: [String: Int] = [:]
        for row in rows.all { totals[row.string(0)] = try row.int(1) }
        return totals
    }

    /// Each of `userIds`' unread total in `appId` counted by ``RelayStore/UnreadSQL/totalsSQL(fromDitto:)``
    /// (a user with none is missing).
    func countUnreadTotals(appId: String, userIds: [String]) throws -> [String: Int] {
        let fromDitto = unreadPolicy.dittoAppIds.contains(appId)
        let rows = try db.query(
            Self.unreadSQL.totalsSQL(fromDitto: fromDitto),
            appId,
            try StoredValues.jsonList(userIds)
        )
        var totals: [String: Int] = [:]
        for row in rows.all { totals[row.string(0)] = try row.int(1) }
        return totals
    }

    /// Adds `message` to its room's index (``RelayStore/UnreadSQL/indexMessageSQL``) and, for an app whose
    /// totals are kept, applies what the write changed (``RelayStore/UnreadSQL/totalsChanges(before:after:)``)
    /// to the cached totals it counts for, inside the caller's transaction. The message's advisory lock
    /// (``messageLockClass``) makes the row read before the write the one the write changes, so writes racing
    /// on one message count once.
    static func indexMessage(
        appId: String,
        _ message: IndexedMessage,
        policy: UnreadPolicy,
        in db: PostgresConnection
    ) throws {
        func write() throws {
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
        guard policy.keepsTotals(appId: appId) else { return try write() }
        try db.query(
            "SELECT pg_advisory_xact_lock(\(messageLockClass), hashtext($1 || '/' || $2 || '/' || $3))",
            appId,
            message.roomId,
            message.key
        )
        let before = try indexedRow(appId: appId, roomId: message.roomId, key: message.key, in: db)
        try write()
        let after = try indexedRow(appId: appId, roomId: message.roomId, key: message.key, in: db)
        for change in UnreadSQL.totalsChanges(before: before, after: after) {
            try addToUnreadTotals(
                change.delta,
                appId: appId,
                roomId: message.roomId,
                senderId: change.row.senderId,
                createdAt: change.row.createdAt,
                policy: policy,
                in: db
            )
        }
    }

    /// The first key of the index's message locks (`pg_advisory_xact_lock(int, int)`): a constant the relay
    /// alone uses; the second is a hash of the app, room and message key.
    static let messageLockClass = 0x6d73_6773

    /// Message `key`'s row in the index of `roomId` (``RelayStore/UnreadSQL/indexedMessageSQL``), if any.
    static func indexedRow(
        appId: String,
        roomId: String,
        key: String,
        in db: PostgresConnection
    ) throws
        -> UnreadSQL.IndexRow?
    {
        let rows = try db.query(unreadSQL.indexedMessageSQL, appId, roomId, key)
        guard rows.count > 0 else { return nil }
        return try UnreadSQL.IndexRow(row: rows[0])
    }

    /// Adds `delta` to the cached total of each user a message of `roomId` by `senderId` at `createdAt`
    /// counts for (``RelayStore/UnreadSQL/messageTotalsSQL(fromDitto:)``).
    static func addToUnreadTotals(
        _ delta: Int,
        appId: String,
        roomId: String,
        senderId: String,
        createdAt: Date,
        policy: UnreadPolicy,
        in db: PostgresConnection
    ) throws {
        let fromDitto = policy.dittoAppIds.contains(appId)
        try db.query(
            unreadSQL.messageTotalsSQL(fromDitto: fromDitto),
            appId,
            roomId,
            senderId,
            createdAt,
            delta,
            fromDitto
        )
    }

    public func dropUnreadTotalsNotKept() async throws {
        try db.query(
            Self.unreadSQL.dropOtherAppsTotalsSQL,
            try StoredValues.jsonList(unreadPolicy.appsKeepingTotals)
        )
    }

    public func deleteIndexedMessages(before: Date, limit: Int) async throws -> Int {
        let policy = unreadPolicy
        return try db.transaction {
            let rooms = try db.query(Self.unreadSQL.oldRoomsSQL, before, limit)
            var deleted = 0
            for row in rooms.all {
                let (appId, roomId, upto) = try (row.string(0), row.string(1), row.date(2))
                let fromDitto = policy.dittoAppIds.contains(appId)
                if policy.keepsTotals(appId: appId) {
                    try db.query(Self.unreadSQL.purgeTotalsSQL(fromDitto: fromDitto), appId, roomId, upto, fromDitto)
                } else {
                    try db.query(Self.unreadSQL.dropRoomTotalsSQL, appId, roomId, upto)
                }
                deleted += try db.query(Self.unreadSQL.deleteRoomMessagesSQL, appId, roomId, upto).changed
            }
            return deleted
        }
    }
}
