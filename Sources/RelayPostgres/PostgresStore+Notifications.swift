import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// Another transaction committed the same idempotency key or message id while this one ran: the call
    /// starts again and answers from that one's rows.
    struct Raced: Error {}

    /// One pending delivery per selected device: $1 app id, $2 the first due time (``RelayStore/NewNotification/dueAt``), $3 recipients
    /// (a room id, or a JSON array of user ids), $4 excluded user, $5 excluded token, $6 topic, $7 the
    /// notification id, $8 the room whose levels apply (NULL: none do), $9 whether the room is direct (every
    /// message a mention), $10 the mentioned user ids (a JSON array). Each device has one user, so each token
    /// appears once. Ids are drawn in the order the join yields: sorting a room's devices first cost about a
    /// tenth of a large room's accept, and nothing reads them by user. Answers the count and the range
    /// (``NotificationDeliveriesSQL/counted(_:with:)``).
    ///
    /// Each recipient's devices are a lateral subquery fenced by `OFFSET 0`, so they are always read by the
    /// recipient's id from `devices_by_user`. A join leaves the choice to the planner, which on tables not
    /// analyzed yet (a new database just filled) takes a room for one member and reads every device of the
    /// app for each member: a room of thousands then outlasts the statement timeout until autovacuum comes.
    static func insertDeliveriesSQL(explicitRecipients: Bool) -> String {
        let recipients =
            explicitRecipients
            ? """
            SELECT DISTINCT r.user_id FROM jsonb_array_elements_text($3::jsonb) AS r (user_id)
            WHERE \(admitted("r.user_id"))
            """
            : """
            SELECT m.user_id FROM room_members AS m WHERE m.app_id = $1 AND m.room_id = $3::text
                AND \(admitted("m.user_id"))
            """
        return NotificationDeliveriesSQL.counted(
            """
            INSERT INTO deliveries (notification_id, app_id, user_id, token, status, attempts, next_attempt_at)
            SELECT $7::uuid, d.app_id, d.user_id, d.token, 'pending', 0, $2::bigint
            FROM (\(recipients)) AS r
            CROSS JOIN LATERAL (
                SELECT d.app_id, d.user_id, d.token FROM devices AS d
                WHERE d.app_id = $1 AND d.user_id = r.user_id AND d.state = 'live'
                    AND ($4::text IS NULL OR d.user_id <> $4::text) AND ($5::text IS NULL OR d.token <> $5::text)
                    AND NOT d.unlinked_topics ? $6::text
                OFFSET 0
            ) AS d
            """
        )
    }

    /// Whether the level of `user` (an SQL expression) for room $8 admits the message
    /// (``RelayStore/RecipientSelection``): its own for the room, else its default, else `all`; true when $8
    /// is NULL.
    private static func admitted(_ user: String) -> String {
        """
        ($8::text IS NULL OR \(NotifyLevelSQL.level(app: "$1", room: "$8::text", user: user)) IN ('all', CASE WHEN $9::boolean OR \(user) IN (SELECT jsonb_array_elements_text($10::jsonb))
                THEN 'mentions' END))
        """
    }

    public func createNotification(
        _ n: NewNotification,
        recipients: RecipientSelection,
        idempotencyKey: IdempotencyKey?
    ) async throws
        -> CreateOutcome
    {
        let userList = try recipients.userIds.map { try StoredValues.jsonList($0) }
        // A race is lost at most once per key and message id: the next round finds the winner's rows.
        for _ in 0..<3 {
            do {
                return try db.transaction {
                    let outcome = try record(
                        n,
                        recipients: recipients,
                        userList: userList,
                        idempotencyKey: idempotencyKey
                    )
                    if case .created = outcome {
                        try Self.indexMessage(appId: n.appId, IndexedMessage(n), policy: unreadPolicy, in: db)
                    }
                    return outcome
                }
            } catch is Raced {
                continue
            } catch let exceeded as DailyBudget.Exceeded {
                return .overBudget(notificationId: n.id, retryAfterSeconds: exceeded.retryAfterSeconds)
            }
        }
        throw StoreError(code: .busy, message: "createNotification lost three races for its key and message id")
    }

    /// The body of ``createNotification(_:recipients:idempotencyKey:)``'s transaction.
    /// - Throws: ``Raced`` when a concurrent transaction committed the key or the message id first.
    func record(
        _ n: NewNotification,
        recipients: RecipientSelection,
        userList: String?,
        idempotencyKey: IdempotencyKey?
    ) throws -> CreateOutcome {
        if let answer = try idempotencyKey?.firstAnswer({
            try rememberedAnswer(for: $0, appId: n.appId, at: n.createdAt)
        }) {
            return answer
        }
        if let messageId = n.messageId {
            let found = try db.query(
                "SELECT id, room_id, sender_id, kind FROM notifications WHERE app_id = $1 AND message_id = $2",
                n.appId,
                messageId
            )
            if found.count > 0 {
                let id = try found[0].uuid(0)
                let (roomId, senderId) = (found[0].string(1), found[0].string(2))
                guard n.isSameMessage(kind: found[0].string(3), roomId: roomId, senderId: senderId) else {
                    return .conflict(notificationId: id, roomId: roomId, senderId: senderId)
                }
                return .duplicate(notificationId: id, devices: try deliveryCount(of: id))
            }
        }
        // The key's row first: a concurrent call with the key waits on it until this one commits.
        if let idempotencyKey, try !remember(idempotencyKey, appId: n.appId, notificationId: n.id, at: n.createdAt) {
            throw Raced()
        }
        guard try insertRow(of: n) else { throw Raced() }
        let parameters: [(any PostgresParameter)?] = [
            n.appId, n.dueAt, userList ?? recipients.roomId, recipients.excludeUserId,
            recipients.excludeToken?.value, n.sendAs, n.id, recipients.levelRoomId, recipients.isDirect,
            try StoredValues.jsonList(recipients.mentionedUserIds),
        ]
        let counted = try db.query(Self.insertDeliveriesSQL(explicitRecipients: userList != nil), parameters)
        let devices = try inserted(counted, of: n.id)
        if let budget = n.budget { try charge(budget, for: n, deliveries: devices) }
        return .created(notificationId: n.id, devices: devices)
    }

    /// After the one statement that inserted notification `id`'s deliveries, answering their count and range
    /// (``NotificationDeliveriesSQL/counted(_:with:)``): records the range and tells the listening relays,
    /// when the transaction commits, that deliveries are due (one notice per notification); nothing when it
    /// inserted none. Returns the count.
    func inserted(_ counted: PostgresRows, of id: UUID) throws -> Int {
        let row = counted[0]
        let count = Int(try row.int64(0))
        guard count > 0 else { return 0 }
        try db.query(NotificationDeliveriesSQL.recordRange, id, try row.int64(1), try row.int64(2))
        try notifyOutbox()
        return count
    }

    /// Inserts the notification's own row (no deliveries yet).
    /// - Returns: false when a notification with its message id exists (nothing inserted).
    func insertRow(of n: NewNotification) throws -> Bool {
        let message = n.message
        let (text, imageURL) = StoredValues.columns(of: message.content)
        let inserted = try db.query(
            """
            INSERT INTO notifications (id, app_id, kind, message_id, room_id, sender_id, text, image_url,
                room_name, sender_name, topic, expiration, created_at, message_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
            ON CONFLICT (app_id, message_id) WHERE message_id IS NOT NULL DO NOTHING
            """,
            n.id,
            n.appId,
            n.kind.rawValue,
            message.messageId,
            message.roomId,
            message.senderId,
            text,
            imageURL,
            message.roomName,
            message.senderName,
            n.sendAs,
            n.expiration,
            n.createdAt,
            n.messageAt
        )
        return inserted.changed == 1
    }

    /// Counts the notification and its bytes (``DailyBudget/cost(of:deliveries:)``) against its sender's day,
    /// a count of an earlier day starting again, and deletes a bounded batch of earlier days' counts. The
    /// upsert locks the sender's row to the end of the transaction: a concurrent webhook of the same sender
    /// waits, then counts on from this one's total.
    /// - Throws: ``DailyBudget/Exceeded`` when the day's counts pass `budget` (the transaction then rolls
    ///   back, this count with it).
    private func charge(_ budget: DailyBudget, for n: NewNotification, deliveries: Int) throws {
        let day = DailyBudget.day(n.createdAt)
        try db.query(
            """
            DELETE FROM user_usage WHERE ctid IN (
                SELECT ctid FROM user_usage WHERE day < $1 LIMIT $2 FOR UPDATE SKIP LOCKED
            )
            """,
            day,
            Self.expiredRateRowsPerWebhook
        )
        let row = try db.query(
            """
            INSERT INTO user_usage (app_id, user_id, day, notifications, bytes) VALUES ($1, $2, $3, 1, $4)
            ON CONFLICT (app_id, user_id) DO UPDATE SET
                notifications = CASE WHEN user_usage.day = excluded.day THEN user_usage.notifications + 1 ELSE 1 END,
                bytes = CASE WHEN user_usage.day = excluded.day
                    THEN user_usage.bytes + excluded.bytes ELSE excluded.bytes END,
                day = excluded.day
            RETURNING notifications, bytes
            """,
            n.appId,
            n.senderId,
            day,
            Int64(DailyBudget.cost(of: n, deliveries: deliveries))
        )
        try budget.check(notifications: row[0].int64(0), bytes: row[0].int64(1), at: n.createdAt)
    }

    /// The number of deliveries of notification `id`.
    func deliveryCount(of id: UUID) throws -> Int {
        try db.query(
            "SELECT count(*) FROM deliveries AS d WHERE \(NotificationDeliveriesSQL.of(id: "$1", delivery: "d"))",
            id
        )[0].int(0)
    }

    public func notificationId(appId: String, messageId: String) async throws -> UUID? {
        let rows = try db.query("SELECT id FROM notifications WHERE app_id = $1 AND message_id = $2", appId, messageId)
        return rows.count > 0 ? try rows[0].uuid(0) : nil
    }

    public func notification(
        appId: String,
        id: UUID,
        limit: Int,
        offset: Int
    ) async throws
        -> (summary: NotificationSummary, deliveries: [DeliveryRecord])?
    {
        try db.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
            let header = try db.query(
                """
                SELECT \(NotificationSummary.columns) FROM notifications
                WHERE id = $1 AND app_id = $2
                """,
                id,
                appId
            )
            guard header.count > 0 else { return nil }
            var summary = try NotificationSummary(row: header[0])
            let counts = try db.query(
                """
                SELECT \(DeliveryCounts.countColumns) FROM deliveries AS d
                WHERE \(NotificationDeliveriesSQL.of(id: "$1", delivery: "d"))
                """,
                id
            )
            summary.counts = try DeliveryCounts(row: counts[0])
            let rows = try db.query(
                Self.deliveriesPageSQL,
                id,
                max(0, limit),
                max(0, offset)
            )
            let deliveries = try rows.all.map {
                try DeliveryRecord(row: $0, notificationId: id, createdAt: summary.createdAt)
            }
            return (summary, deliveries)
        }
    }

    /// A page of notification $1's deliveries in id order: $2 of them after the first $3.
    static let deliveriesPageSQL =
        DeliveryRecord.selectSQL + """

            WHERE \(NotificationDeliveriesSQL.of(id: "$1", delivery: "dl")) ORDER BY dl.id LIMIT $2 OFFSET $3
            """

    public func checkWritable() async throws {
        try db.query(
            "INSERT INTO health (id, checked_at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET checked_at = $1",
            now
        )
    }
}
