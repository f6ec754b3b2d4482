import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    public func dittoRoom(appId: String, roomId: String) async throws -> DittoMessageFacts.Room? {
        try db.dittoRoom(appId: appId, roomId: roomId)
    }

    public func dittoSubscribers(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [String] {
        let rows = try db.query(
            """
            SELECT user_id FROM ditto_subscriptions WHERE app_id = $1 AND room_id = $2
            ORDER BY user_id LIMIT $3 OFFSET $4
            """,
            appId,
            roomId,
            max(1, limit),
            max(0, offset)
        )
        return rows.all.map { $0.string(0) }
    }

    public func isDittoSubscriber(appId: String, roomId: String, userId: String) async throws -> Bool {
        try db.query(
            "SELECT 1 FROM ditto_subscriptions WHERE app_id = $1 AND room_id = $2 AND user_id = $3",
            appId,
            roomId,
            userId
        ).count > 0
    }

    /// Tombstones another relay's run holds are skipped (`SKIP LOCKED`), not waited for; one a concurrent
    /// applier turned back into a live document no longer matches once locked.
    public func purgeDittoTombstones(appId: String, removedBefore: Date, limit: Int) async throws -> Int {
        try db.query(
            """
            DELETE FROM ditto_documents WHERE ctid IN (
                SELECT ctid FROM ditto_documents WHERE app_id = $1 AND removed_at < $2
                ORDER BY removed_at LIMIT $3 FOR UPDATE SKIP LOCKED
            )
            """,
            appId,
            removedBefore,
            max(0, limit)
        ).changed
    }
}

extension PostgresConnection {
    /// The mirrored room `roomId` of `appId`: the DM room when both kinds hold that id (then the first
    /// collection by name), as ``RelayStore/DittoMirrorReads/dittoRoom(appId:roomId:)`` reads it.
    func dittoRoom(appId: String, roomId: String) throws -> DittoMessageFacts.Room? {
        try dittoRooms(appId: appId, roomId: roomId).first
    }

    /// Every mirrored room `roomId` of `appId` (one per room collection holding that id), DM rooms first,
    /// then by collection name.
    func dittoRooms(appId: String, roomId: String) throws -> [DittoMessageFacts.Room] {
        try query(
            """
            SELECT \(DittoMirrorRow.roomColumns) FROM ditto_rooms
            WHERE app_id = $1 AND room_id = $2 ORDER BY is_direct DESC, collection
            """,
            appId,
            roomId
        ).all.map { try DittoMirrorRow.room(row: $0) }
    }
}
