import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    public func applyDittoEvents(
        _ events: [DittoEvent],
        appId: String,
        settings: DittoApplySettings,
        at: Date
    )
        async throws -> DittoApplyCounts
    {
        try db.transaction {
            let rows = SQLiteDittoRows(
                db: db,
                policy: unreadPolicy,
                badgeUpdates: badgeUpdateRule(now: at),
                record: { n, recipients in
                    let userList = try StoredValues.jsonList(recipients.userIds ?? [])
                    let outcome = try self.record(n, recipients: recipients, userList: userList, idempotencyKey: nil)
                    if case .created = outcome { return true }
                    return false
                },
                delete: self.recordDeletion
            )
            return try DittoApplier(rows: rows, appId: appId, settings: settings, at: at).apply(events)
        }
    }
}

/// The Ditto mirror's statements on SQLite, run inside the batch's `BEGIN IMMEDIATE` transaction (one
/// writer at a time, so an insert … on conflict never races).
struct SQLiteDittoRows: DittoMirrorRows {
    let db: SQLiteConnection
    /// The store's unread policy: where the cached totals' positions come from.
    let policy: UnreadPolicy
    let badgeUpdates: BadgeUpdateRule
    /// The store's notification code (``SQLiteStore/createNotification(_:recipients:idempotencyKey:)``'s body).
    let record: (NewNotification, RecipientSelection) throws -> Bool
    /// The store's delete code
    /// (``SQLiteStore/recordDeletion(appId:deletion:notifiedSince:at:removal:)``).
    let delete: (String, DittoMessageRule.Deletion, Date, Date, (ChatMessage) -> NewNotification) throws -> Bool?

    func recordDocument(
        appId: String,
        collection: String,
        id: String,
        txnId: UInt64,
        removedAt: Date?
    ) throws
        -> DittoDocumentWrite
    {
        let txn = Int64(clamping: txnId)
        let changed = try db.withStatement(
            """
            INSERT INTO ditto_documents (app_id, collection, doc_id, txn_id, removed, removed_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (app_id, collection, doc_id) DO UPDATE SET txn_id = excluded.txn_id,
                removed = excluded.removed, removed_at = excluded.removed_at
                WHERE ditto_documents.txn_id < excluded.txn_id
            """
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, collection)
            try statement.bind(3, id)
            try statement.bind(4, txn)
            try statement.bind(5, removedAt != nil)
            try statement.bind(6, removedAt)
            try statement.run()
            return db.changes
        }
        if changed > 0 { return .applied }
        let recorded = try db.withStatement(
            "SELECT txn_id FROM ditto_documents WHERE app_id = ?1 AND collection = ?2 AND doc_id = ?3"
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, collection)
            try row.bind(3, id)
            return try row.step() ? row.int64(0) : nil
        }
        return recorded == txn ? .duplicate : .stale
    }

    func putRoom(appId: String, collection: String, room: DittoChatRoom, isDirect: Bool) throws {
        let participants = try StoredValues.jsonList(room.participants)
        try db.withStatement(
            """
            INSERT INTO ditto_rooms (app_id, collection, room_id, is_direct, name, messages_id, is_generated,
                participants)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            ON CONFLICT (app_id, collection, room_id) DO UPDATE SET is_direct = excluded.is_direct,
                name = excluded.name, messages_id = excluded.messages_id, is_generated = excluded.is_generated,
                participants = excluded.participants
            """
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, collection)
            try statement.bind(3, room.id)
            try statement.bind(4, isDirect)
            try statement.bind(5, room.name)
            try statement.bind(6, room.messagesId)
            try statement.bind(7, room.isGenerated)
            try statement.bind(8, participants)
            try statement.run()
        }
    }

    func deleteRoom(appId: String, collection: String, id: String) throws {
        try db.withStatement("DELETE FROM ditto_rooms WHERE app_id = ?1 AND collection = ?2 AND room_id = ?3") {
            try $0.bind(1, appId)
            try $0.bind(2, collection)
            try $0.bind(3, id)
            try $0.run()
        }
    }

    func putUser(appId: String, user: DittoChatUser) throws {
        try deleteUserRows(appId: appId, id: user.id)
        try db.withStatement("INSERT INTO ditto_users (app_id, user_id, name) VALUES (?1, ?2, ?3)") {
            try $0.bind(1, appId)
            try $0.bind(2, user.id)
            try $0.bind(3, user.name)
            try $0.run()
        }
        for (room, subscription) in user.subscriptions {
            try db.withStatement(
                "INSERT INTO ditto_subscriptions (app_id, room_id, user_id, read_at) VALUES (?1, ?2, ?3, ?4)"
            ) {
                try $0.bind(1, appId)
                try $0.bind(2, room)
                try $0.bind(3, user.id)
                if case .readAt(let date) = subscription { try $0.bind(4, date) } else { try $0.bindNull(4) }
                try $0.run()
            }
        }
        for (room, messageIds) in user.mentions {
            for messageId in messageIds {
                try db.withStatement(
                    """
                    INSERT INTO ditto_mentions (app_id, room_id, message_id, user_id) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT DO NOTHING
                    """
                ) {
                    try $0.bind(1, appId)
                    try $0.bind(2, room)
                    try $0.bind(3, messageId)
                    try $0.bind(4, user.id)
                    try $0.run()
                }
            }
        }
    }

    func deleteUser(appId: String, id: String) throws {
        try deleteUserRows(appId: appId, id: id)
        try SQLiteStore.refreshUnreadTotals(appId: appId, userIds: [id], policy: policy, in: db)
    }

    /// Deletes the mirrored user `id` with its subscription and mention rows (its total is the caller's).
    private func deleteUserRows(appId: String, id: String) throws {
        for table in ["ditto_users", "ditto_subscriptions", "ditto_mentions"] {
            try db.withStatement("DELETE FROM \(table) WHERE app_id = ?1 AND user_id = ?2") {
                try $0.bind(1, appId)
                try $0.bind(2, id)
                try $0.run()
            }
        }
    }

    func isRoomMessageCollection(appId: String, collection: String) throws -> Bool {
        try db.withStatement("SELECT 1 FROM ditto_rooms WHERE app_id = ?1 AND messages_id = ?2 LIMIT 1") {
            try $0.bind(1, appId)
            try $0.bind(2, collection)
            return try $0.step()
        }
    }

    func markSeen(appId: String, messageId: String, txnId: UInt64, keepUntil: Date) throws -> UInt64? {
        let inserted = try db.withStatement(
            """
            INSERT INTO ditto_seen_messages (app_id, message_id, txn_id, keep_until) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (app_id, message_id) DO NOTHING
            """
        ) {
            try $0.bind(1, appId)
            try $0.bind(2, messageId)
            try $0.bind(3, Int64(clamping: txnId))
            try $0.bind(4, keepUntil)
            try $0.run()
            return db.changes > 0
        }
        if inserted { return nil }
        return try db.withStatement("SELECT txn_id FROM ditto_seen_messages WHERE app_id = ?1 AND message_id = ?2") {
            try $0.bind(1, appId)
            try $0.bind(2, messageId)
            return try $0.step() ? UInt64(clamping: $0.int64(0)) : 0
        }
    }

    func purgeSeen(before now: Date, limit: Int) throws {
        try db.withStatement(
            """
            DELETE FROM ditto_seen_messages WHERE (app_id, message_id) IN (
                SELECT app_id, message_id FROM ditto_seen_messages WHERE keep_until < ?1 LIMIT ?2)
            """
        ) {
            try $0.bind(1, now)
            try $0.bind(2, limit)
            try $0.run()
        }
    }

    func rooms(appId: String, roomId: String) throws -> [DittoMessageFacts.Room] {
        try db.dittoRooms(appId: appId, roomId: roomId)
    }

    func facts(
        appId: String,
        message: DittoMessageRule.Message,
        room: DittoMessageFacts.Room?
    ) throws -> DittoMessageFacts {
        var facts = DittoMessageFacts()
        facts.room = room
        facts.senderName = try db.withStatement("SELECT name FROM ditto_users WHERE app_id = ?1 AND user_id = ?2") {
            try $0.bind(1, appId)
            try $0.bind(2, message.senderId)
            return try $0.step() ? $0.optionalString(0) : nil
        }
        facts.subscribers = try db.withStatement(
            "SELECT \(DittoMirrorRow.subscriberColumns) FROM ditto_subscriptions WHERE app_id = ?1 AND room_id = ?2"
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, message.roomId)
            var subscribers: [DittoMessageFacts.Subscriber] = []
            while try row.step() {
                subscribers.append(try DittoMirrorRow.subscriber(row: row))
            }
            return subscribers
        }
        facts.mentionedByUserDocuments = try db.withStatement(
            "SELECT user_id FROM ditto_mentions WHERE app_id = ?1 AND room_id = ?2 AND message_id = ?3"
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, message.roomId)
            try row.bind(3, message.id)
            var users: [String] = []
            while try row.step() { users.append(row.string(0)) }
            return users
        }
        return facts
    }

    func indexMessage(appId: String, _ message: IndexedMessage) throws {
        try SQLiteStore.indexMessage(appId: appId, message, policy: policy, in: db)
    }

    func indexedMessage(appId: String, roomId: String, key: String) throws -> (senderId: String, isArchived: Bool)? {
        try SQLiteStore.indexedRow(appId: appId, roomId: roomId, key: key, in: db).map { ($0.senderId, $0.isArchived) }
    }

    func originalMessageKey(appId: String, roomId: String, key: String) throws -> String {
        try db.withStatement(SQLiteStore.unreadSQL.originalKeySQL) {
            try $0.bind(1, appId)
            try $0.bind(2, roomId)
            try $0.bind(3, key)
            return try $0.step() ? $0.string(0) : key
        }
    }

    func recordRequery(appId: String, txnId: UInt64, at: Date) throws -> Bool {
        try db.withStatement(
            """
            INSERT INTO ditto_requeries (app_id, txn_id, completed_txn_id, requested_at) VALUES (?1, ?2, -1, ?3)
            ON CONFLICT (app_id) DO UPDATE SET txn_id = excluded.txn_id, requested_at = excluded.requested_at
                WHERE ditto_requeries.txn_id < excluded.txn_id
            """
        ) {
            try $0.bind(1, appId)
            try $0.bind(2, Int64(clamping: txnId))
            try $0.bind(3, at)
            try $0.run()
            return db.changes > 0
        }
    }

    func deleteRooms(appId: String, collection: String, below txnId: UInt64) throws {
        try db.withStatement(
            """
            DELETE FROM ditto_rooms WHERE app_id = ?1 AND collection = ?2 AND room_id IN (
                SELECT doc_id FROM ditto_documents
                WHERE app_id = ?1 AND collection = ?2 AND txn_id < ?3 AND removed = 0)
            """
        ) {
            try $0.bind(1, appId)
            try $0.bind(2, collection)
            try $0.bind(3, Int64(clamping: txnId))
            try $0.run()
        }
    }

    func deleteUsers(appId: String, collection: String, below txnId: UInt64) throws {
        let userIds = try db.withStatement(
            "SELECT doc_id FROM ditto_documents WHERE app_id = ?1 AND collection = ?2 AND txn_id < ?3 AND removed = 0"
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, collection)
            try row.bind(3, Int64(clamping: txnId))
            var ids: [String] = []
            while try row.step() { ids.append(row.string(0)) }
            return ids
        }
        for table in ["ditto_users", "ditto_subscriptions", "ditto_mentions"] {
            try db.withStatement(
                """
                DELETE FROM \(table) WHERE app_id = ?1 AND user_id IN (
                    SELECT doc_id FROM ditto_documents
                    WHERE app_id = ?1 AND collection = ?2 AND txn_id < ?3 AND removed = 0)
                """
            ) {
                try $0.bind(1, appId)
                try $0.bind(2, collection)
                try $0.bind(3, Int64(clamping: txnId))
                try $0.run()
            }
        }
        try SQLiteStore.refreshUnreadTotals(appId: appId, userIds: userIds, policy: policy, in: db)
    }

    func tombstoneDocuments(appId: String, collection: String, below txnId: UInt64, at: Date) throws -> Int {
        try db.withStatement(
            """
            UPDATE ditto_documents SET txn_id = ?3, removed = 1, removed_at = ?4
            WHERE app_id = ?1 AND collection = ?2 AND txn_id < ?3 AND removed = 0
            """
        ) {
            try $0.bind(1, appId)
            try $0.bind(2, collection)
            try $0.bind(3, Int64(clamping: txnId))
            try $0.bind(4, at)
            try $0.run()
            return db.changes
        }
    }

    func insertNotification(_ n: NewNotification, recipients: RecipientSelection) throws -> Bool {
        try record(n, recipients)
    }

    func deleteMessage(
        appId: String,
        deletion: DittoMessageRule.Deletion,
        notifiedSince: Date,
        at: Date,
        removal: (ChatMessage) -> NewNotification
    ) throws -> Bool? {
        try delete(appId, deletion, notifiedSince, at, removal)
    }

    func editMessage(appId: String, edit: DittoMessageRule.Edit, notifiedSince: Date) throws -> Bool {
        try db.withStatement(MessageEditSQL.update { "?\($0)" }) {
            try $0.bind(1, appId)
            try $0.bind(2, edit.messageId)
            try $0.bind(3, notifiedSince)
            try $0.bind(4, edit.roomId)
            try $0.bind(5, edit.senderId)
            try $0.bind(6, edit.text)
            try $0.run()
        }
        return db.changes > 0
    }
}
