import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    @discardableResult
    public func addMember(
        appId: String,
        roomId: String,
        userId: String,
        muted: Bool?,
        at: Date,
        limits: UserLimits?
    ) async throws
        -> RoomMember
    {
        guard let limits else {
            return try insertMember(appId: appId, roomId: roomId, userId: userId, muted: muted, at: at)
        }
        return try db.transaction {
            try checkUserLimits(limits, appId: appId, userId: userId, token: nil, rooms: [roomId])
            return try insertMember(appId: appId, roomId: roomId, userId: userId, muted: muted, at: at)
        }
    }

    /// The statement of ``addMember(appId:roomId:userId:muted:at:limits:)``.
    private func insertMember(
        appId: String,
        roomId: String,
        userId: String,
        muted: Bool?,
        at: Date
    ) throws
        -> RoomMember
    {
        let rows = try db.query(
            """
            INSERT INTO room_members (app_id, room_id, user_id, muted, joined_at)
            VALUES ($1, $2, $3, coalesce($4::boolean, false), $5)
            ON CONFLICT (app_id, room_id, user_id) DO UPDATE SET muted = coalesce($4::boolean, room_members.muted)
            RETURNING user_id, muted, joined_at
            """,
            appId,
            roomId,
            userId,
            muted,
            at
        )
        guard rows.count == 1 else { throw StoreError(code: .notFound, message: "addMember returned no row") }
        return Self.readMember(rows, 0)
    }

    public func removeMember(appId: String, roomId: String, userId: String) async throws -> Bool {
        try db.query(
            "DELETE FROM room_members WHERE app_id = $1 AND room_id = $2 AND user_id = $3",
            appId,
            roomId,
            userId
        ).changed > 0
    }

    public func members(appId: String, roomId: String) async throws -> [RoomMember] {
        let rows = try db.query(
            "SELECT user_id, muted, joined_at FROM room_members WHERE app_id = $1 AND room_id = $2 ORDER BY user_id",
            appId,
            roomId
        )
        return (0..<rows.count).map { Self.readMember(rows, $0) }
    }

    public func member(appId: String, roomId: String, userId: String) async throws -> RoomMember? {
        let rows = try db.query(
            "SELECT user_id, muted, joined_at FROM room_members WHERE app_id = $1 AND room_id = $2 AND user_id = $3",
            appId,
            roomId,
            userId
        )
        return rows.count > 0 ? Self.readMember(rows, 0) : nil
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
            try Self.jsonList(userIds)
        )
        return (0..<rows.count).map { rows.string($0, 0) }
    }

    public func roomCount(appId: String, userId: String) async throws -> Int {
        try db.query("SELECT count(*) FROM room_members WHERE app_id = $1 AND user_id = $2", appId, userId).int(0, 0)
    }

    public func roomMembership(appId: String, roomId: String) async throws -> RoomMembership? {
        let rows = try db.query("SELECT membership FROM rooms WHERE app_id = $1 AND room_id = $2", appId, roomId)
        guard rows.count > 0 else { return nil }
        guard let membership = RoomMembership(rawValue: rows.string(0, 0)) else {
            throw StoreError(code: .invalidData, message: "room '\(roomId)' has an unknown membership")
        }
        return membership
    }

    public func setRoomMembership(appId: String, roomId: String, membership: RoomMembership, at: Date) async throws {
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
    }

    /// A member from a row of (user_id, muted, joined_at).
    private static func readMember(_ rows: PostgresRows, _ row: Int) -> RoomMember {
        RoomMember(userId: rows.string(row, 0), muted: rows.bool(row, 1), joinedAt: rows.date(row, 2))
    }
}
