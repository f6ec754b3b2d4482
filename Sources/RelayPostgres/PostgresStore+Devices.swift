import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
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
            // The user's lock (with limits) before the rooms' locks, always in this order.
            if let limits { try checkUserLimits(limits, appId: appId, userId: userId, token: token, rooms: rooms) }
            if origin == .user, !rooms.isEmpty { try lockRooms(appId: appId, rooms) }
            let before = try db.query(
                "SELECT user_id FROM devices WHERE app_id = $1 AND token = $2 FOR UPDATE",
                appId,
                token.value
            )
            // `xmax = 0` on the returned row: the row was inserted, not updated (a new version written by
            // this statement's update carries this transaction's id there).
            let rows = try db.query(
                """
                INSERT INTO devices (app_id, token, user_id, environment, state, created_at, updated_at, platform,
                    address)
                VALUES ($1, $2, $3, $4, 'live', $5, $5, $6, $7)
                ON CONFLICT (app_id, token) DO UPDATE SET user_id = $3, environment = $4, state = 'live',
                    created_at = CASE WHEN devices.user_id = $3 THEN devices.created_at ELSE $5 END,
                    updated_at = $5, platform = $6, address = $7, retired_at = NULL, retired_reason = NULL, apns_timestamp = NULL,
                    unlinked_topics = '[]'
                RETURNING \(Device.columns), xmax = 0
                """,
                appId,
                token.value,
                userId,
                token.storedScope,
                at,
                token.platform.rawValue,
                token.address
            )
            try db.query(
                Self.joinSQL(list: true),
                appId,
                try StoredValues.jsonList(rooms),
                userId,
                at,
                origin.rawValue
            )
            try refreshUnreadTotals(appId: appId, userIds: [userId] + before.all.map { $0.string(0) })
            return (try Device(row: rows[0]), try rows[0].bool(Device.columnCount))
        }
    }

    public func device(appId: String, token: PushToken) async throws -> Device? {
        try devices(where: "app_id = $1 AND token = $2", appId, token.value).first
    }

    public func deleteDevice(appId: String, token: PushToken) async throws -> Bool {
        try db.transaction {
            let deleted = try db.query(
                "DELETE FROM devices WHERE app_id = $1 AND token = $2 RETURNING user_id",
                appId,
                token.value
            )
            guard deleted.count > 0 else { return false }
            try refreshUnreadTotals(appId: appId, userIds: [deleted[0].string(0)])
            return true
        }
    }

    public func devices(appId: String, userId: String) async throws -> [Device] {
        try devices(where: "app_id = $1 AND user_id = $2 ORDER BY created_at, token", appId, userId)
    }

    public func deadTokens(appId: String, since: Date) async throws -> [Device] {
        try devices(
            where: "app_id = $1 AND state = 'retired' AND retired_at >= $2 ORDER BY retired_at, token",
            appId,
            since
        )
    }

    public func deadTokens(appId: String, since: Date, limit: Int) async throws -> [Device] {
        guard limit > 0 else { return [] }
        return try devices(
            where: "app_id = $1 AND state = 'retired' AND retired_at >= $2 ORDER BY retired_at, token LIMIT $3",
            appId,
            since,
            limit
        )
    }

    public func deviceCounts() async throws -> [DeviceState: Int] {
        // An aggregate without GROUP BY answers one row.
        try DeviceState.counts(row: try db.query("SELECT \(DeviceState.countColumns) FROM devices")[0])
    }

    public func liveDeviceCount(appId: String, userId: String) async throws -> Int {
        let rows = try db.query(
            "SELECT count(*) FROM devices WHERE app_id = $1 AND user_id = $2 AND state = 'live'",
            appId,
            userId
        )
        return try rows[0].int(0)
    }

    /// The devices a condition on the table (and its order and limit) selects.
    private func devices(where condition: String, _ parameters: (any PostgresParameter)?...) throws -> [Device] {
        let rows = try db.query("SELECT \(Device.columns) FROM devices WHERE \(condition)", parameters)
        return try rows.all.map(Device.init(row:))
    }
}
