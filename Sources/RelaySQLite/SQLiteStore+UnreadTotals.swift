import Foundation
import RelayCore
import RelayStore

/// The cached unread totals (``UnreadSQL`` `+Totals`) on SQLite: each call runs inside the caller's
/// transaction, so a total changes with what changes it.
extension SQLiteStore {
    /// Recounts `userIds`' cached totals in `appId` from the current policy's source: a user with a live
    /// device gets its row, a user without has none.
    func refreshUnreadTotals(appId: String, userIds: [String]) throws {
        try Self.refreshUnreadTotals(appId: appId, userIds: userIds, policy: unreadPolicy, in: db)
    }

    /// ``refreshUnreadTotals(appId:userIds:)`` over `db` with `policy` (nothing for an app whose totals are
    /// not kept).
    static func refreshUnreadTotals(
        appId: String,
        userIds: [String],
        policy: UnreadPolicy,
        in db: SQLiteConnection
    ) throws {
        let users = Array(Set(userIds)).sorted()
        guard !users.isEmpty, policy.keepsTotals(appId: appId) else { return }
        let list = try StoredValues.jsonList(users)
        try db.withStatement(unreadSQL.dropTotalsSQL) {
            try $0.bind(1, appId)
            try $0.bind(2, list)
            try $0.run()
        }
        let fromDitto = policy.dittoAppIds.contains(appId)
        try db.withStatement(unreadSQL.refreshTotalsSQL(fromDitto: fromDitto)) {
            try $0.bind(1, appId)
            try $0.bind(2, list)
            try $0.bind(3, fromDitto)
            try $0.run()
        }
    }

    /// Each of `userIds`' unread total in `appId` (0 for a user with none), for the badges of a claim
    /// (``UnreadTotalsLookup``).
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
        try db.withStatement(Self.unreadSQL.cachedTotalsSQL) { row in
            try row.bind(1, appId)
            try row.bind(2, try StoredValues.jsonList(userIds))
            try row.bind(3, fromDitto)
            var totals: [String: Int] = [:]
            while try row.step() { totals[row.string(0)] = row.int(1) }
            return totals
        }
    }

    /// Each of `userIds`' unread total in `appId` counted by ``UnreadSQL/totalsSQL(fromDitto:)`` (a user
    /// with none is missing).
    func countUnreadTotals(appId: String, userIds: [String]) throws -> [String: Int] {
        let fromDitto = unreadPolicy.dittoAppIds.contains(appId)
        return try db.withStatement(Self.unreadSQL.totalsSQL(fromDitto: fromDitto)) { row in
            try row.bind(1, appId)
            try row.bind(2, try StoredValues.jsonList(userIds))
            var totals: [String: Int] = [:]
            while try row.step() { totals[row.string(0)] = row.int(1) }
            return totals
        }
    }

    /// Adds `message` to its room's index (``UnreadSQL/indexMessageSQL``) and, for an app whose totals are
    /// kept, applies what the write changed (``UnreadSQL/totalsChanges(before:after:)``) to the cached totals
    /// it counts for, inside the caller's transaction.
    static func indexMessage(
        appId: String,
        _ message: IndexedMessage,
        policy: UnreadPolicy,
        in db: SQLiteConnection
    ) throws {
        func write() throws {
            try db.withStatement(unreadSQL.indexMessageSQL) {
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
        guard policy.keepsTotals(appId: appId) else { return try write() }
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

    /// Message `key`'s row in the index of `roomId` (``UnreadSQL/indexedMessageSQL``), if any.
    static func indexedRow(
        appId: String,
        roomId: String,
        key: String,
        in db: SQLiteConnection
    ) throws
        -> UnreadSQL.IndexRow?
    {
        try db.withStatement(unreadSQL.indexedMessageSQL) { row in
            try row.bind(1, appId)
            try row.bind(2, roomId)
            try row.bind(3, key)
            guard try row.step() else { return nil }
            return try UnreadSQL.IndexRow(row: row)
        }
    }

    /// Adds `delta` to the cached total of each user a message of `roomId` by `senderId` at `createdAt`
    /// counts for (``UnreadSQL/messageTotalsSQL(fromDitto:)``).
    static func addToUnreadTotals(
        _ delta: Int,
        appId: String,
        roomId: String,
        senderId: String,
        createdAt: Date,
        policy: UnreadPolicy,
        in db: SQLiteConnection
    ) throws {
        let fromDitto = policy.dittoAppIds.contains(appId)
        try db.withStatement(unreadSQL.messageTotalsSQL(fromDitto: fromDitto)) {
            try $0.bind(1, appId)
            try $0.bind(2, roomId)
            try $0.bind(3, senderId)
            try $0.bind(4, createdAt)
            try $0.bind(5, delta)
            try $0.bind(6, fromDitto)
            try $0.run()
        }
    }

    public func dropUnreadTotalsNotKept() async throws {
        let kept = try StoredValues.jsonList(unreadPolicy.appsKeepingTotals)
        try db.withStatement(Self.unreadSQL.dropOtherAppsTotalsSQL) {
            try $0.bind(1, kept)
            try $0.run()
        }
    }

    public func deleteIndexedMessages(before: Date, limit: Int) async throws -> Int {
        let policy = unreadPolicy
        return try db.transaction {
            let rooms = try db.withStatement(Self.unreadSQL.oldRoomsSQL) { row in
                try row.bind(1, before)
                try row.bind(2, limit)
                var rooms: [(appId: String, roomId: String, upto: Date)] = []
                while try row.step() { rooms.append((row.string(0), row.string(1), row.date(2))) }
                return rooms
            }
            var deleted = 0
            for room in rooms {
                let fromDitto = policy.dittoAppIds.contains(room.appId)
                if policy.keepsTotals(appId: room.appId) {
                    try db.withStatement(Self.unreadSQL.purgeTotalsSQL(fromDitto: fromDitto)) {
                        try $0.bind(1, room.appId)
                        try $0.bind(2, room.roomId)
                        try $0.bind(3, room.upto)
                        try $0.bind(4, fromDitto)
                        try $0.run()
                    }
                } else {
                    try db.withStatement(Self.unreadSQL.dropRoomTotalsSQL) {
                        try $0.bind(1, room.appId)
                        try $0.bind(2, room.roomId)
                        try $0.bind(3, room.upto)
                        try $0.run()
                    }
                }
                deleted += try db.withStatement(Self.unreadSQL.deleteRoomMessagesSQL) {
                    try $0.bind(1, room.appId)
                    try $0.bind(2, room.roomId)
                    try $0.bind(3, room.upto)
                    try $0.run()
                    return db.changes
                }
            }
            return deleted
        }
    }
}
