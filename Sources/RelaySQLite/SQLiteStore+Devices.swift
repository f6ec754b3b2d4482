import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    public func upsertDevice(
        appId: String,
        token: PushToken,
        userId: String,
        rooms: [String],
        origin: RoomMember.Origin,
        at: Date,
        limits: UserLimits?
    ) async throws -> (device: Device, created: Bool) {
        try db.transaction {
            if let limits { try checkUserLimits(limits, appId: appId, userId: userId, token: token, rooms: rooms) }
            let existing = try loadDevice(appId: appId, token: token)
            let sql =
                existing == nil
                ? """
                INSERT INTO devices (app_id, token, user_id, environment, state, created_at, updated_at, platform,
                    address)
                VALUES (?1, ?2, ?3, ?4, 'live', ?5, ?5, ?6, ?7)
                """
                : """
                UPDATE devices SET user_id = ?3, environment = ?4, state = 'live', updated_at = ?5, platform = ?6,
                    created_at = CASE WHEN user_id = ?3 THEN created_at ELSE ?5 END,
                    address = ?7, retired_at = NULL, retired_reason = NULL, apns_timestamp = NULL, unlinked_topics = '[]'
                WHERE app_id = ?1 AND token = ?2
                """
            try db.withStatement(sql) { statement in
                try statement.bind(1, appId)
                try statement.bind(2, token.value)
                try statement.bind(3, userId)
                try statement.bind(4, token.storedScope)
                try statement.bind(5, at)
                try statement.bind(6, token.platform.rawValue)
                try statement.bind(7, token.address)
                try statement.run()
            }
            for room in Set(rooms) {
                _ = try join(appId: appId, roomId: room, userId: userId, notify: nil, origin: origin, at: at)
            }
            try refreshUnreadTotals(appId: appId, userIds: [userId] + (existing.map { [$0.userId] } ?? []))
            guard let device = try loadDevice(appId: appId, token: token) else {
                throw StoreError(code: .notFound, message: "device …\(token.suffix) vanished during upsert")
            }
            return (device, existing == nil)
        }
    }

    public func device(appId: String, token: PushToken) async throws -> Device? {
        try loadDevice(appId: appId, token: token)
    }

    public func deleteDevice(appId: String, token: PushToken) async throws -> Bool {
        try db.transaction {
            guard let device = try loadDevice(appId: appId, token: token) else { return false }
            try db.withStatement("DELETE FROM devices WHERE app_id = ?1 AND token = ?2") { statement in
                try statement.bind(1, appId)
                try statement.bind(2, token.value)
                try statement.run()
            }
            try refreshUnreadTotals(appId: appId, userIds: [device.userId])
            return true
        }
    }

    public func devices(appId: String, userId: String) async throws -> [Device] {
        try db.withStatement(
            """
            SELECT \(Device.columns) FROM devices WHERE app_id = ?1 AND user_id = ?2
            ORDER BY created_at, token
            """
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, userId)
            var devices: [Device] = []
            while try statement.step() { devices.append(try Device(row: statement)) }
            return devices
        }
    }

    public func deadTokens(appId: String, since: Date) async throws -> [Device] {
        try db.withStatement(
            """
            SELECT \(Device.columns) FROM devices
            WHERE app_id = ?1 AND state = 'retired' AND retired_at >= ?2
            ORDER BY retired_at, token
            """
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, since)
            var devices: [Device] = []
            while try statement.step() { devices.append(try Device(row: statement)) }
            return devices
        }
    }

    public func deviceCounts() async throws -> [DeviceState: Int] {
        try db.withStatement("SELECT \(DeviceState.countColumns) FROM devices") { statement in
            // An aggregate without GROUP BY answers one row.
            guard try statement.step() else {
                throw StoreError(code: .invalidData, message: "the device counts answered no row")
            }
            return try DeviceState.counts(row: statement)
        }
    }

    // MARK: Rooms

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
            if let limits { try checkUserLimits(limits, appId: appId, userId: userId, token: nil, rooms: [roomId]) }
            // A level set to `none` can lower the user's total.
            return try rule.moving(appId: appId, userId: userId) {
                try join(appId: appId, roomId: roomId, userId: userId, notify: notify, origin: origin, at: at)
            }
        }
    }

    /// ``addMember(appId:roomId:userId:notify:origin:at:limits:)`` in the caller's transaction: one statement
    /// joins, so the room's rule it reads is the one a close commits before or after it; the level changes
    /// only when it joined.
    private func join(
        appId: String,
        roomId: String,
        userId: String,
        notify: RoomLevelChange?,
        origin: RoomMember.Origin,
        at: Date
    ) throws -> RoomMember? {
        let joined = try db.withStatement(
            """
            INSERT INTO room_members (app_id, room_id, user_id, joined_at, origin)
            SELECT ?1, ?2, ?3, ?4, ?5
            WHERE ?5 = 'backend'
                OR NOT EXISTS (SELECT 1 FROM rooms WHERE app_id = ?1 AND room_id = ?2 AND membership = 'closed')
            ON CONFLICT (app_id, room_id, user_id) DO UPDATE SET
                origin = CASE WHEN ?5 = 'backend' THEN 'backend' ELSE origin END
            RETURNING \(Self.memberColumns)
            """
        ) { statement -> RoomMember? in
            try statement.bind(1, appId)
            try statement.bind(2, roomId)
            try statement.bind(3, userId)
            try statement.bind(4, at)
            try statement.bind(5, origin.rawValue)
            guard try statement.step() else { return nil }
            let member = try RoomMember(row: statement)
            try statement.run()
            return member
        }
        guard var member = joined else { return nil }
        if let notify {
            try writeRoomLevel(appId: appId, roomId: roomId, userId: userId, notify)
            member.notify = notify.level
        }
        return member
    }

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
                let (elsewhere, here) = try db.withStatement(UserLimitsSQL.levelsElsewhereSQL(parameter: { "?\($0)" }))
                {
                    try $0.bind(1, appId)
                    try $0.bind(2, userId)
                    try $0.bind(3, roomId)
                    return try $0.step() ? ($0.int(0), $0.int(1)) : (0, 0)
                }
                try scope.check(change, elsewhere: elsewhere, alreadySet: here > 0)
            }
            if scope == .members {
                let isMember = try db.withStatement(
                    "SELECT 1 FROM room_members WHERE app_id = ?1 AND room_id = ?2 AND user_id = ?3"
                ) {
                    try $0.bind(1, appId)
                    try $0.bind(2, roomId)
                    try $0.bind(3, userId)
                    return try $0.step()
                }
                guard isMember else { return false }
            }
            try rule.moving(appId: appId, userId: userId) {
                try writeRoomLevel(appId: appId, roomId: roomId, userId: userId, change)
            }
            return true
        }
    }

    public func roomLevel(appId: String, roomId: String, userId: String) async throws -> NotifyLevel? {
        try db.withStatement("SELECT level FROM room_levels WHERE app_id = ?1 AND room_id = ?2 AND user_id = ?3") {
            try $0.bind(1, appId)
            try $0.bind(2, roomId)
            try $0.bind(3, userId)
            return try $0.step() ? try StoredValues.level($0.string(0)) : nil
        }
    }

    public func userLevel(appId: String, userId: String) async throws -> NotifyLevel? {
        try db.withStatement("SELECT notify FROM user_settings WHERE app_id = ?1 AND user_id = ?2") {
            try $0.bind(1, appId)
            try $0.bind(2, userId)
            return try $0.step() ? try StoredValues.level($0.string(0)) : nil
        }
    }

    public func setUserLevel(appId: String, userId: String, _ level: NotifyLevel?) async throws {
        let sql =
            level == nil
            ? "DELETE FROM user_settings WHERE app_id = ?1 AND user_id = ?2"
            : """
            INSERT INTO user_settings (app_id, user_id, notify) VALUES (?1, ?2, ?3)
            ON CONFLICT (app_id, user_id) DO UPDATE SET notify = excluded.notify
            """
        let rule = badgeUpdateRule(now: now)
        try db.transaction {
            try rule.moving(appId: appId, userId: userId) {
                try db.withStatement(sql) {
                    try $0.bind(1, appId)
                    try $0.bind(2, userId)
                    if let level { try $0.bind(3, level.rawValue) }
                    try $0.run()
                }
            }
        }
    }

    /// Writes the user's own level for the room (a row of `room_levels`; none for the user's default), in
    /// the caller's transaction.
    private func writeRoomLevel(appId: String, roomId: String, userId: String, _ change: RoomLevelChange) throws {
        let sql =
            change.level == nil
            ? "DELETE FROM room_levels WHERE app_id = ?1 AND room_id = ?2 AND user_id = ?3"
            : """
            INSERT INTO room_levels (app_id, room_id, user_id, level) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (app_id, room_id, user_id) DO UPDATE SET level = excluded.level
            """
        try db.withStatement(sql) {
            try $0.bind(1, appId)
            try $0.bind(2, roomId)
            try $0.bind(3, userId)
            if let level = change.level { try $0.bind(4, level.rawValue) }
            try $0.run()
        }
    }

    public func removeMember(appId: String, roomId: String, userId: String) async throws -> Bool {
        let rule = badgeUpdateRule(now: now)
        return try db.transaction {
            try rule.moving(appId: appId, userId: userId) {
                try writeRoomLevel(appId: appId, roomId: roomId, userId: userId, .userDefault)
                return try db.withStatement(
                    "DELETE FROM room_members WHERE app_id = ?1 AND room_id = ?2 AND user_id = ?3"
                ) {
                    try $0.bind(1, appId)
                    try $0.bind(2, roomId)
                    try $0.bind(3, userId)
                    try $0.run()
                    return db.changes > 0
                }
            }
        }
    }

    public func members(appId: String, roomId: String) async throws -> [RoomMember] {
        try db.withStatement(
            "SELECT \(Self.memberColumns) FROM room_members WHERE app_id = ?1 AND room_id = ?2 ORDER BY user_id"
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, roomId)
            var members: [RoomMember] = []
            while try statement.step() { members.append(try RoomMember(row: statement)) }
            return members
        }
    }

    public func members(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [RoomMember] {
        try db.withStatement(
            """
            SELECT \(Self.memberColumns) FROM room_members WHERE app_id = ?1 AND room_id = ?2
            ORDER BY user_id LIMIT ?3 OFFSET ?4
            """
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, roomId)
            try statement.bind(3, max(1, limit))
            try statement.bind(4, max(0, offset))
            var members: [RoomMember] = []
            while try statement.step() { members.append(try RoomMember(row: statement)) }
            return members
        }
    }

    // MARK: Rows

    /// ``RelayStore/RoomMember/columns(of:)`` of a `room_members` row (not aliased).
    static let memberColumns = RoomMember.columns(of: "room_members")

    func loadDevice(appId: String, token: PushToken) throws -> Device? {
        try db.withStatement("SELECT \(Device.columns) FROM devices WHERE app_id = ?1 AND token = ?2") {
            try $0.bind(1, appId)
            try $0.bind(2, token.value)
            return try $0.step() ? try Device(row: $0) : nil
        }
    }
}
