import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    public func dittoRoom(appId: String, roomId: String) async throws -> DittoMessageFacts.Room? {
        try db.dittoRoom(appId: appId, roomId: roomId)
    }

    public func dittoSubscribers(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [String] {
        try db.withStatement(
            """
            SELECT user_id FROM ditto_subscriptions WHERE app_id = ?1 AND room_id = ?2
            ORDER BY user_id LIMIT ?3 OFFSET ?4
            """
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, roomId)
            try row.bind(3, max(1, limit))
            try row.bind(4, max(0, offset))
            var users: [String] = []
            while try row.step() { users.append(row.string(0)) }
            return users
        }
    }

    public func isDittoSubscriber(appId: String, roomId: String, userId: String) async throws -> Bool {
        try db.withStatement(
            "SELECT 1 FROM ditto_subscriptions WHERE app_id = ?1 AND room_id = ?2 AND user_id = ?3"
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, roomId)
            try row.bind(3, userId)
            return try row.step()
        }
    }

    public func purgeDittoTombstones(appId: String, removedBefore: Date, limit: Int) async throws -> Int {
        try db.withStatement(
            """
            DELETE FROM ditto_documents WHERE (app_id, collection, doc_id) IN (
                SELECT app_id, collection, doc_id FROM ditto_documents
                WHERE app_id = ?1 AND removed_at < ?2 ORDER BY removed_at LIMIT ?3)
            """
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, removedBefore)
            try statement.bind(3, max(0, limit))
            try statement.run()
            return db.changes
        }
    }
}

extension SQLiteConnection {
    /// The mirrored room `roomId` of `appId`: the DM room when both kinds hold that id (then the first
    /// collection by name), as ``DittoMirrorReads/dittoRoom(appId:roomId:)`` reads it.
    func dittoRoom(appId: String, roomId: String) throws -> DittoMessageFacts.Room? {
        try dittoRooms(appId: appId, roomId: roomId).first
    }

    /// Every mirrored room `roomId` of `appId` (one per room collection holding that id), DM rooms first,
    /// then by collection name.
    func dittoRooms(appId: String, roomId: String) throws -> [DittoMessageFacts.Room] {
        try withStatement(
            """
            SELECT \(DittoMirrorRow.roomColumns) FROM ditto_rooms
            WHERE app_id = ?1 AND room_id = ?2 ORDER BY is_direct DESC, collection
            """
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, roomId)
            var rooms: [DittoMessageFacts.Room] = []
            while try row.step() { rooms.append(try DittoMirrorRow.room(row: row)) }
            return rooms
        }
    }
}
