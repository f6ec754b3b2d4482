import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    @discardableResult
    public func addMember(
        appId: String,
        roomId: String,
        userId: String,
        notify: RoomLevelChange?,
        origin: RoomMember.Origin,
        at: Date,
        limits: UserLimits?
    ) async throws
        -> RoomMember?
    {
        let rule = badgeUpdateRule(now: now)
        return try db.transaction {
            // The user's lock (with limits) before the room's lock, always in this order.
            if let limits { try checkUserLimits(limits, appId: appId, userId: userId, token: nil, rooms: [roomId]) }
            if origin == .user { try lockRooms(appId: appId, [roomId]) }
            // A level set to `none` can lower the user's total.
            return try rule.moving(appId: appId, userId: userId) { () -> RoomMember? in
                let rows = try db.query(Self.joinSQL(list: false), appId, roomId, userId, at, origin.rawValue)
                guard rows.count == 1 else { return nil }
                var member = try RoomMember(row: rows[0])
                // The level changes only when the user joined.
                if let notify {
                    try writeRoomLevel(appId: appId, roomId: roomId, userId: userId, notify)
                    member.notify = notify.level
                }
                return member
            }
        }
    }

    /// Joins $3 to the rooms in $2 (one room id, or with `list` a JSON array of them) as $5 made the
    /// membership, at $4, and returns the members as stored (``memberColumns``):
    /// ``RelayStore/Store/addMember(appId:roomId:userId:notify:origin:at:limits:)``'s rule, in one statement. A
    /// user's own join needs the rooms' locks (``lockRooms(appId:_:)``), taken earlier in its transaction.
    static func joinSQL(list: Bool) -> String {
        let rooms =
            list ? "SELECT DISTINCT room FROM jsonb_array_elements_text($2::jsonb) AS j (room)" : "SELECT $2::text"
        return """
            INSERT INTO room_members AS m (app_id, room_id, user_id, joined_at, origin)
            SELECT $1, s.room, $3, $4::bigint, $5::text FROM (\(rooms)) AS s (room)
            WHERE $5::text = 'backend' OR NOT EXISTS (
                SELECT 1 FROM rooms AS r WHERE r.app_id = $1 AND r.room_id = s.room AND r.membership = 'closed')
            ON CONFLICT (app_id, room_id, user_id) DO UPDATE SET
                origin = CASE WHEN $5::text = 'backend' THEN 'backend' ELSE m.origin END
            RETURNING \(memberColumns)
            """
    }

    /// Takes the transaction-scoped advisory locks of the rooms, in the order of their keys so that two
    /// transactions never wait on each other: a user's own join and a close of the same room hold the
    /// same lock, so a join that read the room open commits before the close removes its row.
    func lockRooms(appId: String, _ roomIds: [String]) throws {
        try db.query(
            """
            SELECT pg_advisory_xact_lock(\(Self.roomLockClass), k.key) FROM (
                SELECT DISTINCT hashtext($1 || '/' || room) AS key FROM jsonb_array_elements_text($2::jsonb) AS j (room)
                ORDER BY key
            ) AS k
            """,
            appId,
            try StoredValues.jsonList(roomIds)
        )
    }

    /// The first key of the room locks (`pg_advisory_xact_lock(int, int)`): a constant the relay alone uses;
    /// the second is a hash of the app and room ids.
    static let roomLockClass = 0x726f_6f6d

    @discardableResult
    public func setRoomLevel(
        appId: String,
        roomId: String,
        userId: String,
        _ change: RoomLevelChange,
        scope: RoomLevelScope
    ) async throws -> Bool {
        let rule = badgeUpdateRule(now: now)
        return try db.transaction {
            if scope.isBounded {
                try lockUser(appId: appId, userId: userId)
                let elsewhere = try db.query(
                    UserLimitsSQL.levelsElsewhereSQL(parameter: { "$\($0)" }),
                    appId,
                    userId,
                    roomId
                )
                try scope.check(change, elsewhere: elsewhere[0].int(0), alreadySet: elsewhere[0].int(1) > 0)
            }
            if scope == .members {
                // Locks the membership row, so a concurrent leave commits before this reads it or after.
                let member = try db.query(
                    "SELECT 1 FROM room_members WHERE app_id = $1 AND room_id = $2 AND user_id = $3 FOR SHARE",
                    appId,
                    roomId,
                    userId
                )
                guard member.count == 1 else { return false }
            }
            try rule.moving(appId: appId, userId: userId) {
                try writeRoomLevel(appId: appId, roomId: roomId, userId: userId, change)
            }
            return true
        }
    }

    public func roomLevel(appId: String, roomId: String, userId: String) async throws -> NotifyLevel? {
        let rows = try db.query(
            "SELECT level FROM room_levels WHERE app_id = $1 AND room_id = $2 AND user_id = $3",
            appId,
            roomId,
            userId
        )
        return try rows.count == 1 ? StoredValues.level(rows[0].string(0)) : nil
    }

    public func userLevel(appId: String, userId: String) async throws -> NotifyLevel? {
        let rows = try db.query("SELECT notify FROM user_settings WHERE app_id = $1 AND user_id = $2", appId, userId)
        return try rows.count == 1 ? StoredValues.level(rows[0].string(0)) : nil
    }

    public func setUserLevel(appId: String, userId: String, _ level: NotifyLevel?) async throws {
        let rule = badgeUpdateRule(now: now)
        try db.transaction {
            try rule.moving(appId: appId, userId: userId) { () -> Void in
                if let level {
                    try db.query(
                        """
                        INSERT INTO user_settings (app_id, user_id, notify) VALUES ($1, $2, $3)
                        ON CONFLICT (app_id, user_id) DO UPDATE SET notify = excluded.notify
                        """,
                        appId,
                        userId,
                        level.rawValue
                    )
                } else {
                    try db.query("DELETE FROM user_settings WHERE app_id = $1 AND user_id = $2", appId, userId)
                }
            }
        }
    }

    /// Writes the user's own level for the room (a row of `room_levels`; none for the user's default), in
    /// the caller's transaction.
    private func writeRoomLevel(appId: String, roomId: String, userId: String, _ change: RoomLevelChange) throws {
        if let level = change.level {
            try db.query(
                """
                INSERT INTO room_levels (app_id, room_id, user_id, level) VALUES ($1, $2, $3, $4)
                ON CONFLICT (app_id, room_id, user_id) DO UPDATE SET level = excluded.level
                """,
                appId,
                roomId,
                userId,
                level.rawValue
            )
        } else {
            try db.query(
                "DELETE FROM room_levels WHERE app_id = $1 AND room_id = $2 AND user_id = $3",
                appId,
                roomId,
                userId
            )
        }
    }

    public func removeMember(appId: String, roomId: String, userId: String) async throws -> Bool {
        let rule = badgeUpdateRule(now: now)
        return try db.transaction {
            try rule.moving(appId: appId, userId: userId) {
                try writeRoomLevel(appId: appId, roomId: roomId, userId: userId, .userDefault)
                return try db.query(
                    "DELETE FROM room_members WHERE app_id = $1 AND room_id = $2 AND user_id = $3",
                    appId,
                    roomId,
                    userId
                ).changed > 0
            }
        }
    }

    public func members(appId: String, roomId: String) async throws -> [RoomMember] {
        let rows = try db.query(
            "SELECT \(Self.memberColumns) FROM room_members AS m WHERE app_id = $1 AND room_id = $2 ORDER BY user_id",
            appId,
            roomId
        )
        return try rows.all.map(RoomMember.init(row:))
    }

    public func members(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [RoomMember] {
        let rows = try db.query(
            """
            SELECT \(Self.memberColumns) FROM room_members AS m WHERE app_id = $1 AND room_id = $2
            ORDER BY user_id LIMIT $3 OFFSET $4
            """,
            appId,
            roomId,
            max(1, limit),
            max(0, offset)
        )
        return try rows.all.map(RoomMember.init(row:))
    }

    public func member(appId: String, roomId: String, userId: String) async throws -> RoomMember? {
        let rows = try db.query(
            "SELECT \(Self.memberColumns) FROM room_members AS m WHERE app_id = $1 AND room_id = $2 AND user_id = $3",
            appId,
            roomId,
            userId
        )
        return try rows.count > 0 ? RoomMember(row: rows[0]) : nil
    }

    public func nonMembers(appId: String, roomId: String, userIds: [String]) async throws -> [String] {
        let rows = try db.query(
            """
            SELECT u.user_id FROM jsonb_array_elements_text($3::jsonb) WITH ORDINALITY AS u (user_id, position)
            WHERE NOT EXISTS (
                SELECT 1 FROM room_members AS m WHERE m.app_id = $1 AND m.room_id = $2 AND m.user_id = u.user_id
            )
            ORDER BY u.position
            """,
            appId,
            roomId,
            try StoredValues.jsonList(userIds)
        )
        return rows.all.map { $0.string(0) }
    }

    public func roomCount(appId: String, userId: String) async throws -> Int {
        try db.query("SELECT count(*) FROM room_members WHERE app_id = $1 AND user_id = $2", appId, userId)[0].int(0)
    }

    public func roomMembership(appId: String, roomId: String) async throws -> RoomMembership? {
        let rows = try db.query(
            "SELECT \(RoomMembership.columns) FROM rooms WHERE app_id = $1 AND room_id = $2",
            appId,
            roomId
        )
        return try rows.count > 0 ? RoomMembership(row: rows[0], roomId: roomId) : nil
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
            try lockRooms(appId: appId, [roomId])
            try db.query(
                """
                INSERT INTO rooms (app_id, room_id, membership, updated_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (app_id, room_id) DO UPDATE SET membership = $3, updated_at = $4
                """,
                appId,
                roomId,
                membership.rawValue,
                at
            )
            guard membership == .closed else { return 0 }
            let removed = try rule.closing(appId: appId, roomId: roomId) {
                try db.query(
                    """
                    DELETE FROM room_levels WHERE app_id = $1 AND room_id = $2 AND user_id IN (
                        SELECT user_id FROM room_members WHERE app_id = $1 AND room_id = $2 AND origin = 'user')
                    """,
                    appId,
                    roomId
                )
                return try db.query(
                    "DELETE FROM room_members WHERE app_id = $1 AND room_id = $2 AND origin = 'user' RETURNING user_id",
                    appId,
                    roomId
                )
            }
            try refreshUnreadTotals(appId: appId, userIds: removed.all.map { $0.string(0) })
            return removed.count
        }
    }

    /// ``RelayStore/RoomMember/columns(of:)`` of a `room_members` row named `m`.
    static let memberColumns = RoomMember.columns(of: "m")
}
