import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    public func applyDittoEvents(
        _ events: [DittoEvent],
        appId: String,
        settings: DittoApplySettings,
        at: Date
    )
        async throws -> DittoApplyCounts
    {
        // Batches of one app are applied one at a time (relays, or HTTP and Kafka, on any relay): two that
        // locked the same documents in their own orders would deadlock, and one of them run again, as often
        // as they kept meeting.
        try db.retryingTransaction {
            try db.query("SELECT pg_advisory_xact_lock(\(Self.dittoLockClass), hashtext($1))", appId)
            let rows = PostgresDittoRows(
                db: db,
                policy: unreadPolicy,
                badgeUpdates: badgeUpdateRule(now: at),
                record: { n, recipients in
                    do {
                        let userList = try StoredValues.jsonList(recipients.userIds ?? [])
                        let outcome = try self.record(
                            n,
                            recipients: recipients,
                            userList: userList,
                            idempotencyKey: nil
                        )
                        if case .created = outcome { return true }
                        return false
                    } catch is Raced {
                        // A webhook's notification with this message id committed meanwhile: the message has one.
                        return false
                    }
                },
                delete: self.recordDeletion
            )
            return try DittoApplier(rows: rows, appId: appId, settings: settings, at: at).apply(events)
        }
    }
}

/// The Ditto mirror's statements on PostgreSQL, run inside the batch's transaction. Concurrent appliers meet
/// on unique keys: an insert … on conflict waits for the other transaction's row and then sees it committed.
struct PostgresDittoRows: DittoMirrorRows {
    let db: PostgresConnection
    /// The store's unread policy: where the cached totals' positions come from.
    let policy: UnreadPolicy
    let badgeUpdates: BadgeUpdateRule
    /// The store's notification code (``PostgresStore/createNotification(_:recipients:idempotencyKey:)``'s body).
    let record: (NewNotification, RecipientSelection) throws -> Bool
    /// The store's delete code
    /// (``PostgresStore/recordDeletion(appId:deletion:notifiedSince:at:removal:)``).
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
        let changed = try db.query(
            """
            INSERT INTO ditto_documents (app_id, collection, doc_id, txn_id, removed, removed_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (app_id, collection, doc_id) DO UPDATE SET txn_id = excluded.txn_id,
                removed = excluded.removed, removed_at = excluded.removed_at
                WHERE ditto_documents.txn_id < excluded.txn_id
            """,
            appId,
            collection,
            id,
            txn,
            removedAt != nil,
            removedAt
        )
        if changed.changed > 0 { return .applied }
        let recorded = try db.query(
            "SELECT txn_id FROM ditto_documents WHERE app_id = $1 AND collection = $2 AND doc_id = $3",
            appId,
            collection,
            id
        )
        return try recorded.count > 0 && recorded[0].int64(0) == txn ? .duplicate : .stale
    }

    func putRoom(appId: String, collection: String, room: DittoChatRoom, isDirect: Bool) throws {
        try db.query(
            """
            INSERT INTO ditto_rooms (app_id, collection, room_id, is_direct, name, messages_id, is_generated,
                participants)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
            ON CONFLICT (app_id, collection, room_id) DO UPDATE SET is_direct = excluded.is_direct,
                name = excluded.name, messages_id = excluded.messages_id, is_generated = excluded.is_generated,
                participants = excluded.participants
            """,
            appId,
            collection,
            room.id,
            isDirect,
            room.name,
            room.messagesId,
            room.isGenerated,
            try StoredValues.jsonList(room.participants)
        )
    }

    func deleteRoom(appId: String, collection: String, id: String) throws {
        try db.query(
            "DELETE FROM ditto_rooms WHERE app_id = $1 AND collection = $2 AND room_id = $3",
            appId,
            collection,
            id
        )
    }

    func putUser(appId: String, user: DittoChatUser) throws {
        try deleteUserRows(appId: appId, id: user.id)
        try db.query("INSERT INTO ditto_users (app_id, user_id, name) VALUES ($1, $2, $3)", appId, user.id, user.name)
        var rooms: [String] = []
        var readAt: [Int64?] = []
        for (room, subscription) in user.subscriptions {
            rooms.append(room)
            if case .readAt(let date) = subscription {
                readAt.append(EpochMilliseconds.of(date))
            } else {
                readAt.append(nil)
            }
        }
        if !rooms.isEmpty {
            try db.query(
                """
                INSERT INTO ditto_subscriptions (app_id, room_id, user_id, read_at)
                SELECT $1, s.room_id, $2, s.read_at
                FROM jsonb_to_recordset($3::jsonb) AS s (room_id text, read_at bigint)
                """,
                appId,
                user.id,
                try StoredValues.jsonList(zip(rooms, readAt).map { SubscriptionRow(room_id: $0, read_at: $1) })
            )
        }
        let mentions = user.mentions.flatMap { room, ids in ids.map { MentionRow(room_id: room, message_id: $0) } }
        if !mentions.isEmpty {
            try db.query(
                """
                INSERT INTO ditto_mentions (app_id, room_id, message_id, user_id)
                SELECT $1, m.room_id, m.message_id, $2
                FROM jsonb_to_recordset($3::jsonb) AS m (room_id text, message_id text)
                ON CONFLICT DO NOTHING
                """,
                appId,
                user.id,
                try StoredValues.jsonList(mentions)
            )
        }
    }

    /// One subscription as ``putUser(appId:user:)`` sends it in a JSON array.
    private struct SubscriptionRow: Encodable {
        var room_id: String
        var read_at: Int64?
    }

    /// One mention as ``putUser(appId:user:)`` sends it in a JSON array.
    private struct MentionRow: Encodable {
        var room_id: String
        var message_id: String
    }

    func deleteUser(appId: String, id: String) throws {
        try deleteUserRows(appId: appId, id: id)
        try PostgresStore.refreshUnreadTotals(appId: appId, userIds: [id], policy: policy, in: db)
    }

    /// Deletes the mirrored user `id` with its subscription and mention rows (its total is the caller's).
    private func deleteUserRows(appId: String, id: String) throws {
        for table in ["ditto_users", "ditto_subscriptions", "ditto_mentions"] {
            try db.query("DELETE FROM \(table) WHERE app_id = $1 AND user_id = $2", appId, id)
        }
    }

    func isRoomMessageCollection(appId: String, collection: String) throws -> Bool {
        try db.query("SELECT 1 FROM ditto_rooms WHERE app_id = $1 AND messages_id = $2 LIMIT 1", appId, collection)
            .count > 0
    }

    func markSeen(appId: String, messageId: String, txnId: UInt64, keepUntil: Date) throws -> UInt64? {
        let inserted = try db.query(
            """
            INSERT INTO ditto_seen_messages (app_id, message_id, txn_id, keep_until) VALUES ($1, $2, $3, $4)
            ON CONFLICT (app_id, message_id) DO NOTHING
            """,
            appId,
            messageId,
            Int64(clamping: txnId),
            keepUntil
        )
        if inserted.changed > 0 { return nil }
        let seen = try db.query(
            "SELECT txn_id FROM ditto_seen_messages WHERE app_id = $1 AND message_id = $2",
            appId,
            messageId
        )
        return try seen.count > 0 ? UInt64(clamping: seen[0].int64(0)) : 0
    }

    func purgeSeen(before now: Date, limit: Int) throws {
        try db.query(
            """
            DELETE FROM ditto_seen_messages WHERE ctid IN (
                SELECT ctid FROM ditto_seen_messages WHERE keep_until < $1 LIMIT $2 FOR UPDATE SKIP LOCKED
            )
            """,
            now,
            limit
        )
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
        let sender = try db.query(
            "SELECT name FROM ditto_users WHERE app_id = $1 AND user_id = $2",
            appId,
            message.senderId
        )
        facts.senderName = sender.count > 0 ? sender[0].optionalString(0) : nil
        let subscribers = try db.query(
            "SELECT \(DittoMirrorRow.subscriberColumns) FROM ditto_subscriptions WHERE app_id = $1 AND room_id = $2",
            appId,
            message.roomId
        )
        facts.subscribers = try subscribers.all.map(DittoMirrorRow.subscriber(row:))
        let mentioned = try db.query(
            "SELECT user_id FROM ditto_mentions WHERE app_id = $1 AND room_id = $2 AND message_id = $3",
            appId,
            message.roomId,
            message.id
        )
        facts.mentionedByUserDocuments = mentioned.all.map { $0.string(0) }
        return facts
    }

    func indexMessage(appId: String, _ message: IndexedMessage) throws {
        try PostgresStore.indexMessage(appId: appId, message, policy: policy, in: db)
    }

    func indexedMessage(appId: String, roomId: String, key: String) throws -> (senderId: String, isArchived: Bool)? {
        try PostgresStore.indexedRow(appId: appId, roomId: roomId, key: key, in: db).map {
            ($0.senderId, $0.isArchived)
        }
    }

    func originalMessageKey(appId: String, roomId: String, key: String) throws -> String {
        let rows = try db.query(PostgresStore.unreadSQL.originalKeySQL, appId, roomId, key)
        return rows.count > 0 ? rows[0].string(0) : key
    }

    func recordRequery(appId: String, txnId: UInt64, at: Date) throws -> Bool {
        try db.query(
            """
            INSERT INTO ditto_requeries (app_id, txn_id, completed_txn_id, requested_at) VALUES ($1, $2, -1, $3)
            ON CONFLICT (app_id) DO UPDATE SET txn_id = excluded.txn_id, requested_at = excluded.requested_at
                WHERE ditto_requeries.txn_id < excluded.txn_id
            """,
            appId,
            Int64(clamping: txnId),
            at
        ).changed > 0
    }

    func deleteRooms(appId: String, collection: String, below txnId: UInt64) throws {
        try db.query(
            """
            DELETE FROM ditto_rooms WHERE app_id = $1 AND collection = $2 AND room_id IN (
                SELECT doc_id FROM ditto_documents
                WHERE app_id = $1 AND collection = $2 AND txn_id < $3 AND NOT removed)
            """,
            appId,
            collection,
            Int64(clamping: txnId)
        )
    }

    func deleteUsers(appId: String, collection: String, below txnId: UInt64) throws {
        let swept = try db.query(
            "SELECT doc_id FROM ditto_documents WHERE app_id = $1 AND collection = $2 AND txn_id < $3 AND NOT removed",
            appId,
            collection,
            Int64(clamping: txnId)
        )
        let userIds = swept.all.map { $0.string(0) }
        for table in ["ditto_users", "ditto_subscriptions", "ditto_mentions"] {
            try db.query(
                """
                DELETE FROM \(table) WHERE app_id = $1 AND user_id IN (
                    SELECT doc_id FROM ditto_documents
                    WHERE app_id = $1 AND collection = $2 AND txn_id < $3 AND NOT removed)
                """,
                appId,
                collection,
                Int64(clamping: txnId)
            )
        }
        try PostgresStore.refreshUnreadTotals(appId: appId, userIds: userIds, policy: policy, in: db)
    }

    func tombstoneDocuments(appId: String, collection: String, below txnId: UInt64, at: Date) throws -> Int {
        try db.query(
            """
            UPDATE ditto_documents SET txn_id = $3, removed = true, removed_at = $4
            WHERE app_id = $1 AND collection = $2 AND txn_id < $3 AND NOT removed
            """,
            appId,
            collection,
            Int64(clamping: txnId),
            at
        ).changed
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
        try db.query(
            MessageEditSQL.update { "$\($0)" },
            appId,
            edit.messageId,
            notifiedSince,
            edit.roomId,
            edit.senderId,
            edit.text
        ).changed > 0
    }
}

extension PostgresStore {
    /// The first key of the per-app Ditto apply locks (`pg_advisory_xact_lock(int, int)`): a constant the
    /// relay uses for nothing else; the second is a hash of the app id.
    static let dittoLockClass = 0x6474_746f
}
