import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    /// One pending delivery per selected device. Parameters: ?1 app id, ?2 the first due time (``NewNotification/dueAt``),
    /// ?3 recipients (room id, or a JSON array of user ids), ?4 excluded user, ?5 excluded token, ?6 topic,
    /// ?7 the room whose levels apply (NULL: none do), ?8 whether the room is direct (every message a
    /// mention), ?9 the mentioned user ids (a JSON array). The rows are the notification's by their ids (its
    /// first and last delivery id, set next).
    ///
    /// The recipients drive the loop (CROSS JOIN fixes the order; INDEXED BY the per-user index), so the cost
    /// follows the number of recipients, not the app's device count. A device has one user, so each token
    /// appears once.
    static func insertDeliveriesSQL(explicitRecipients: Bool) -> String {
        let recipients =
            explicitRecipients
            ? "(SELECT DISTINCT r.value AS user_id FROM json_each(?3) AS r WHERE \(admitted("r.value")))"
            : """
            (SELECT m.user_id FROM room_members AS m WHERE m.app_id = ?1 AND m.room_id = ?3
                AND \(admitted("m.user_id")))
            """
        return """
            INSERT INTO deliveries (app_id, user_id, token, status, attempts, next_attempt_at)
            SELECT d.app_id, d.user_id, d.token, 'pending', 0, ?2
            FROM \(recipients) AS r
            CROSS JOIN devices AS d INDEXED BY devices_by_user_state
            WHERE d.app_id = ?1 AND d.user_id = r.user_id AND d.state = 'live'
                AND (?4 IS NULL OR d.user_id <> ?4) AND (?5 IS NULL OR d.token <> ?5)
                AND (d.unlinked_topics = '[]'
                    OR NOT EXISTS (SELECT 1 FROM json_each(d.unlinked_topics) WHERE value = ?6))
            """
    }

    /// Whether the level of `user` (an SQL expression) for room ?7 admits the message
    /// (``RecipientSelection``): its own for the room, else its default, else `all`; true when ?7 is NULL.
    private static func admitted(_ user: String) -> String {
        """
        (?7 IS NULL OR \(NotifyLevelSQL.level(app: "?1", room: "?7", user: user)) IN ('all', CASE WHEN ?8 OR \(user) IN (SELECT value FROM json_each(?9)) THEN 'mentions' END))
        """
    }

    public func createNotification(
        _ n: NewNotification,
        recipients: RecipientSelection,
        idempotencyKey: IdempotencyKey?
    ) async throws
        -> CreateOutcome
    {
        let userList: String?
        if let userIds = recipients.userIds {
            userList = try StoredValues.jsonList(userIds)
        } else {
            userList = nil
        }
        do {
            return try db.transaction {
                let outcome = try record(n, recipients: recipients, userList: userList, idempotencyKey: idempotencyKey)
                if case .created = outcome {
                    try Self.indexMessage(appId: n.appId, IndexedMessage(n), policy: unreadPolicy, in: db)
                }
                return outcome
            }
        } catch let exceeded as DailyBudget.Exceeded {
            return .overBudget(notificationId: n.id, retryAfterSeconds: exceeded.retryAfterSeconds)
        }
    }

    /// The body of ``createNotification(_:recipients:idempotencyKey:)``'s transaction.
    /// - Throws: ``DailyBudget/Exceeded`` when the notification would pass its sender's budget.
    func record(
        _ n: NewNotification,
        recipients: RecipientSelection,
        userList: String?,
        idempotencyKey: IdempotencyKey?
    ) throws -> CreateOutcome {
        let id = n.id.lowercasedString
        if let answer = try idempotencyKey?.firstAnswer({
            try rememberedAnswer(for: $0, appId: n.appId, at: n.createdAt)
        }) {
            return answer
        }
        if let messageId = n.messageId {
            let found = try db.withStatement(
                """
                SELECT id, room_id, sender_id, first_delivery_id, last_delivery_id, kind FROM notifications
                WHERE app_id = ?1 AND message_id = ?2
                """
            ) { row -> (id: String, roomId: String, senderId: String, deliveries: DeliveryRun, kind: String)? in
                try row.bind(1, n.appId)
                try row.bind(2, messageId)
                guard try row.step() else { return nil }
                return (row.string(0), row.string(1), row.string(2), DeliveryRun(row, first: 3), row.string(5))
            }
            if let found,
                !n.isSameMessage(kind: found.kind, roomId: found.roomId, senderId: found.senderId)
            {
                return .conflict(
                    notificationId: try StoredValues.uuid(found.id),
                    roomId: found.roomId,
                    senderId: found.senderId
                )
            }
            if let found {
                return .duplicate(
                    notificationId: try StoredValues.uuid(found.id),
                    devices: try count(found.deliveries)
                )
            }
        }
        if let idempotencyKey { try remember(idempotencyKey, appId: n.appId, notificationId: id, at: n.createdAt) }
        try insertRow(of: n)
        try db.withStatement(Self.insertDeliveriesSQL(explicitRecipients: userList != nil)) { statement in
            try statement.bind(1, n.appId)
            try statement.bind(2, n.dueAt)
            try statement.bind(3, userList ?? recipients.roomId)
            try statement.bind(4, recipients.excludeUserId)
            try statement.bind(5, recipients.excludeToken?.value)
            try statement.bind(6, n.sendAs)
            try statement.bind(7, recipients.levelRoomId)
            try statement.bind(8, recipients.isDirect)
            try statement.bind(9, try StoredValues.jsonList(recipients.mentionedUserIds))
            try statement.run()
        }
        let devices = db.changes
        try setDeliveryRun(of: id, inserted: devices)
        if let budget = n.budget { try charge(budget, for: n, deliveries: devices) }
        return .created(notificationId: n.id, devices: devices)
    }

    /// Inserts the notification's own row (no deliveries yet).
    func insertRow(of n: NewNotification) throws {
        try db.withStatement(
            """
            INSERT INTO notifications (id, app_id, kind, message_id, room_id, sender_id, text, image_url,
                room_name, sender_name, topic, expiration, created_at, message_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
            """
        ) { statement in
            let message = n.message
            try statement.bind(1, n.id.lowercasedString)
            try statement.bind(2, n.appId)
            try statement.bind(3, n.kind.rawValue)
            try statement.bind(4, message.messageId)
            try statement.bind(5, message.roomId)
            try statement.bind(6, message.senderId)
            let (text, imageURL) = StoredValues.columns(of: message.content)
            try statement.bind(7, text)
            try statement.bind(8, imageURL)
            try statement.bind(9, message.roomName)
            try statement.bind(10, message.senderName)
            try statement.bind(11, n.sendAs)
            try statement.bind(12, n.expiration)
            try statement.bind(13, n.createdAt)
            try statement.bind(14, n.messageAt)
            try statement.run()
        }
    }

    /// Records notification `id`'s run of delivery ids after one statement inserted its `inserted`
    /// deliveries (none: no run).
    func setDeliveryRun(of id: String, inserted devices: Int) throws {
        if devices > 0 {
            // One statement under the write lock: its rows took consecutive ids, each one above the largest
            // (SQLite, "ROWIDs and the INTEGER PRIMARY KEY"), ending at the last row inserted.
            let last = db.lastInsertRowId
            try db.withStatement(
                "UPDATE notifications SET first_delivery_id = ?2, last_delivery_id = ?3 WHERE id = ?1"
            ) {
                try $0.bind(1, id)
                try $0.bind(2, last - Int64(devices) + 1)
                try $0.bind(3, last)
                try $0.run()
            }
        }
    }

    /// Counts the notification and its bytes (``DailyBudget/cost(of:deliveries:)``) against its sender's day,
    /// a count of an earlier day starting again, and deletes a bounded batch of earlier days' counts.
    /// - Throws: ``DailyBudget/Exceeded`` when the day's counts pass `budget` (the caller's transaction then
    ///   rolls back, this count with it).
    private func charge(_ budget: DailyBudget, for n: NewNotification, deliveries: Int) throws {
        let day = DailyBudget.day(n.createdAt)
        try db.withStatement(
            """
            DELETE FROM user_usage WHERE (app_id, user_id) IN (
                SELECT app_id, user_id FROM user_usage WHERE day < ?1 LIMIT ?2
            )
            """
        ) {
            try $0.bind(1, day)
            try $0.bind(2, Self.expiredRateRowsPerWebhook)
            try $0.run()
        }
        let (notifications, bytes) = try db.withStatement(
            """
            INSERT INTO user_usage (app_id, user_id, day, notifications, bytes) VALUES (?1, ?2, ?3, 1, ?4)
            ON CONFLICT (app_id, user_id) DO UPDATE SET
                notifications = CASE WHEN day = excluded.day THEN notifications + 1 ELSE 1 END,
                bytes = CASE WHEN day = excluded.day THEN bytes + excluded.bytes ELSE excluded.bytes END,
                day = excluded.day
            RETURNING notifications, bytes
            """
        ) { statement -> (Int64, Int64) in
            try statement.bind(1, n.appId)
            try statement.bind(2, n.senderId)
            try statement.bind(3, day)
            try statement.bind(4, Int64(DailyBudget.cost(of: n, deliveries: deliveries)))
            guard try statement.step() else { throw StoreError(code: .notFound, message: "user_usage returned no row") }
            let counts = (statement.int64(0), statement.int64(1))
            try statement.run()
            return counts
        }
        try budget.check(notifications: notifications, bytes: bytes, at: n.createdAt)
    }

    /// The number of deliveries in `run`.
    func count(_ run: DeliveryRun) throws -> Int {
        try db.withStatement("SELECT count(*) FROM deliveries WHERE id BETWEEN ?1 AND ?2") {
            try run.bind(to: $0, at: 1)
            return try $0.step() ? $0.int(0) : 0
        }
    }

    public func notificationId(appId: String, messageId: String) async throws -> UUID? {
        try db.withStatement("SELECT id FROM notifications WHERE app_id = ?1 AND message_id = ?2") { row in
            try row.bind(1, appId)
            try row.bind(2, messageId)
            return try row.step() ? try row.uuid(0) : nil
        }
    }

    public func notification(
        appId: String,
        id: UUID,
        limit: Int,
        offset: Int
    ) async throws
        -> (summary: NotificationSummary, deliveries: [DeliveryRecord])?
    {
        let n = id
        let id = id.lowercasedString
        return try db.transaction {
            let header = try db.withStatement(
                """
                SELECT \(NotificationSummary.columns), first_delivery_id, last_delivery_id
                FROM notifications WHERE id = ?1 AND app_id = ?2
                """
            ) { row -> (NotificationSummary, DeliveryRun)? in
                try row.bind(1, id)
                try row.bind(2, appId)
                guard try row.step() else { return nil }
                return (try NotificationSummary(row: row), DeliveryRun(row, first: 6))
            }
            guard let (header, run) = header else { return nil }
            var summary = header
            summary.counts = try deliveryCounts(of: run)
            let deliveries = try db.withStatement(
                DeliveryRecord.selectSQL + "\nWHERE dl.id BETWEEN ?2 + ?4 AND ?3 ORDER BY dl.id LIMIT ?1"
            ) { row in
                try row.bind(1, max(0, limit))
                try row.bind(4, max(0, offset))
                try run.bind(to: row, at: 2)
                var records: [DeliveryRecord] = []
                while try row.step() {
                    records.append(try DeliveryRecord(row: row, notificationId: n, createdAt: header.createdAt))
                }
                return records
            }
            return (summary, deliveries)
        }
    }

    public func checkWritable() async throws {
        let at = now
        try db.transaction {
            try db.withStatement(
                "INSERT INTO health (id, checked_at) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET checked_at = ?1"
            ) {
                try $0.bind(1, at)
                try $0.run()
            }
        }
    }
}

/// The run of ids of a notification's deliveries (`first_delivery_id`, `last_delivery_id`; both NULL when it
/// has none, and then a range matches nothing).
struct DeliveryRun {
    var first: Int64?
    var last: Int64?

    /// Reads the two columns from `first` on.
    init(_ row: SQLiteStatement, first column: Int) {
        first = row.isNull(column) ? nil : row.int64(column)
        last = row.isNull(column + 1) ? nil : row.int64(column + 1)
    }

    /// Binds first and last to `index` and `index + 1`, for `id BETWEEN ? AND ?`.
    func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try statement.bind(index, first)
        try statement.bind(index + 1, last)
    }
}
