import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    public func member(appId: String, roomId: String, userId: String) async throws -> RoomMember? {
        try db.withStatement(
            "SELECT \(Self.memberColumns) FROM room_members WHERE app_id = ?1 AND room_id = ?2 AND user_id = ?3"
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, roomId)
            try statement.bind(3, userId)
            guard try statement.step() else { return nil }
            return try RoomMember(row: statement)
        }
    }

    public func nonMembers(appId: String, roomId: String, userIds: [String]) async throws -> [String] {
        try db.withStatement(
            "SELECT 1 FROM room_members WHERE app_id = ?1 AND room_id = ?2 AND user_id = ?3"
        ) { statement in
            var outside: [String] = []
            for userId in userIds {
                try statement.bind(1, appId)
                try statement.bind(2, roomId)
                try statement.bind(3, userId)
                if try !statement.step() { outside.append(userId) }
                statement.reset()
            }
            return outside
        }
    }

    public func roomCount(appId: String, userId: String) async throws -> Int {
        try count("SELECT count(*) FROM room_members WHERE app_id = ?1 AND user_id = ?2", appId, userId)
    }

    public func liveDeviceCount(appId: String, userId: String) async throws -> Int {
        try count("SELECT count(*) FROM devices WHERE app_id = ?1 AND user_id = ?2 AND state = 'live'", appId, userId)
    }

    public func roomMembership(appId: String, roomId: String) async throws -> RoomMembership? {
        let sql = "SELECT \(RoomMembership.columns) FROM rooms WHERE app_id = ?1 AND room_id = ?2"
        return try db.withStatement(sql) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, roomId)
            guard try statement.step() else { return nil }
            return try RoomMembership(row: statement, roomId: roomId)
        }
    }

    @discardableResult
    public func setRoomMembership(
        appId: String,
        roomId: String,
        membership: RoomMembership,
        at: Date
    ) async throws -> Int {
        let rule = badgeUpdateRule(now: now)
        return try db.transaction {
            try db.withStatement(
                """
                INSERT INTO rooms (app_id, room_id, membership, updated_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (app_id, room_id) DO UPDATE SET membership = ?3, updated_at = ?4
                """
            ) { statement in
                try statement.bind(1, appId)
                try statement.bind(2, roomId)
                try statement.bind(3, membership.rawValue)
                try statement.bind(4, at)
                try statement.run()
            }
            guard membership == .closed else { return 0 }
            // The members it removes whose totals are cached, recounted once they are gone.
            let cached = try db.withStatement(
                """
                SELECT m.user_id FROM room_members AS m
                JOIN unread_totals AS t ON t.app_id = m.app_id AND t.user_id = m.user_id
                WHERE m.app_id = ?1 AND m.room_id = ?2 AND m.origin = 'user'
                """
            ) { row in
                try row.bind(1, appId)
                try row.bind(2, roomId)
                var users: [String] = []
                while try row.step() { users.append(row.string(0)) }
                return users
            }
            let removed = try rule.closing(appId: appId, roomId: roomId) {
                try db.withStatement(
                    """
                    DELETE FROM room_levels WHERE app_id = ?1 AND room_id = ?2 AND user_id IN (
                        SELECT user_id FROM room_members WHERE app_id = ?1 AND room_id = ?2 AND origin = 'user')
                    """
                ) { statement in
                    try statement.bind(1, appId)
                    try statement.bind(2, roomId)
                    try statement.run()
                }
                return try db.withStatement(
                    "DELETE FROM room_members WHERE app_id = ?1 AND room_id = ?2 AND origin = 'user'"
                ) { statement in
                    try statement.bind(1, appId)
                    try statement.bind(2, roomId)
                    try statement.run()
                    return db.changes
                }
            }
            try refreshUnreadTotals(appId: appId, userIds: cached)
            return removed
        }
    }

    /// The single integer a `count(*)` query over (app id, user id) gives.
    private func count(_ sql: String, _ appId: String, _ userId: String) throws -> Int {
        try db.withStatement(sql) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, userId)
            guard try statement.step() else { return 0 }
            return statement.int(0)
        }
    }
}
