import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    public func appsWithDueDeliveries(now: Date) async throws -> [String] {
        // A loose index scan over `deliveries_due` (app_id first): one seek per app, however many are pending.
        try db.withStatement(
            """
            WITH RECURSIVE app(id) AS (
                SELECT min(app_id) FROM deliveries WHERE status = 'pending'
                UNION ALL
                SELECT (SELECT min(app_id) FROM deliveries WHERE status = 'pending' AND app_id > app.id)
                FROM app WHERE app.id IS NOT NULL
            )
            SELECT id FROM app
            WHERE id IS NOT NULL
                AND (SELECT min(next_attempt_at) FROM deliveries WHERE status = 'pending' AND app_id = app.id) <= ?1
            """
        ) { row in
            try row.bind(1, now)
            var apps: [String] = []
            while try row.step() { apps.append(row.string(0)) }
            return apps
        }
    }

    /// A claim leases what it takes a run at a time (``LeaseRun``: one due time, a range of ids), one row of
    /// `delivery_leases` per run; the due index does not hold leases, so leased rows stay in their place.
    /// Each app's claims go on from where the last one stopped (``ClaimCursor``) instead of reading past the
    /// rows in flight again; a claim that reaches the end starts the next one from the beginning, where it
    /// passes over rows still leased (taken by this relay, or by another on the same file).
    public func claimDueDeliveries(
        appId: String,
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        owner: String
    ) async throws
        -> [DeliveryJob]
    {
        guard limit > 0 else { return [] }
        let leaseUntil = now.addingTimeInterval(TimeInterval(leaseSeconds))
        let nowMilliseconds = SQLiteStatement.milliseconds(now)
        var cursor = ClaimCursor.live(claimCursors[appId], now: nowMilliseconds, leaseSeconds: leaseSeconds)
        let jobs = try db.transaction {
            if try dropEndedLeases(appId: appId, now: nowMilliseconds) { cursor = nil }
            let leased = try liveLeases(appId: appId, now: nowMilliseconds, after: cursor)
            var jobs: [DeliveryJob] = []
            jobs.reserveCapacity(limit)
            var userIds: [String] = []  // each job's recipient, for the badges
            var notifications: [NotificationRun] = []  // one per notification, its content shared
            var notificationOfJob: [Int] = []  // each job's index in `notifications`
            // The jobs taken since the last lease written, with the undeliverable rows ended among them.
            var run: LeaseRun?
            // Until `limit` jobs or nothing more is due: leased rows are passed over, undeliverable ones ended.
            while jobs.count < limit {
                let wanted = limit - jobs.count
                let due = try dueDeliveries(appId: appId, now: now, after: cursor, limit: wanted)
                for delivery in due {
                    let (dueAt, id) = (delivery.nextAttemptAt, delivery.id)
                    cursor = .after(cursor, nextAttemptAt: dueAt, id: id, now: nowMilliseconds)
                    if leased.contains(where: { $0.covers(nextAttemptAt: dueAt, id: id) }) {
                        // A run holds only what this claim read and took or ended.
                        if let taken = run { try lease(taken, appId: appId, until: leaseUntil, owner: owner) }
                        run = nil
                        continue
                    }
                    let index: Int
                    if let known = notifications.lastIndex(where: { $0.deliveries.contains(delivery.id) }) {
                        index = known
                    } else {
                        index = notifications.count
                        notifications.append(try loadNotification(of: delivery))
                    }
                    let notification = notifications[index]
                    if let (status, reason) = try Self.undeliverable(delivery, sendAs: notification.content.sendAs) {
                        try settle(delivery.id, status: status, reason: reason, at: now)
                        continue
                    }
                    if let taken = run, taken.nextAttemptAt == delivery.nextAttemptAt {
                        run?.last = delivery.id
                    } else {
                        if let taken = run { try lease(taken, appId: appId, until: leaseUntil, owner: owner) }
                        run = LeaseRun(nextAttemptAt: delivery.nextAttemptAt, first: delivery.id, last: delivery.id)
                    }
                    jobs.append(try delivery.claimed.job(appId: appId, content: notification.content))
                    userIds.append(delivery.claimed.userId)
                    notificationOfJob.append(index)
                }
                if due.count < wanted {
                    cursor = nil
                    break
                }
            }
            if let run { try lease(run, appId: appId, until: leaseUntil, owner: owner) }
            try cancelRead(&jobs, userIds: userIds, notificationOfJob, notifications, appId: appId, at: now)
            return try unreadPolicy.badged(jobs, userIds: userIds, appId: appId) {
                try unreadTotals(appId: appId, userIds: $0)
            }
        }
        claimCursors[appId] = cursor
        return jobs
    }

    /// Ends the jobs whose recipient read their notification's room up to the message's time as `cancelled`
    /// (read), and marks them so (``RelayStore/ClaimReads``). `userIds` and `notificationOfJob` are each
    /// job's recipient and index in `notifications`.
    private func cancelRead(
        _ jobs: inout [DeliveryJob],
        userIds: [String],
        _ notificationOfJob: [Int],
        _ notifications: [NotificationRun],
        appId: String,
        at now: Date
    ) throws {
        let fromDitto = unreadPolicy.dittoAppIds.contains(appId)
        let cancelled = try ClaimReads.cancelRead(
            &jobs,
            userIds: userIds,
            messageOfJob: notificationOfJob,
            messages: notifications.map { ClaimReads.Message($0.content) },
            ranges: { reads in
                try reads.map { message, limit in
                    try userIdBytes(fromDitto ? Self.readersDittoSQL : Self.readersSQL) { row in
                        try row.bind(1, appId)
                        try row.bind(2, message.roomId)
                        try row.bind(3, message.time)
                        try row.bind(4, limit)
                    }
                }
            },
            among: { message, userIds in
                try userIdBytes(fromDitto ? Self.readersAmongDittoSQL : Self.readersAmongSQL) { row in
                    try row.bind(1, appId)
                    try row.bind(2, message.roomId)
                    try row.bind(3, try StoredValues.jsonList(userIds))
                    try row.bind(4, message.time)
                }
            }
        )
        for id in cancelled { try settle(id, status: .cancelled, reason: CancelReason.read.rawValue, at: now) }
    }

    /// The user ids (their UTF-8 bytes) of `sql`'s one column, its parameters bound by `bind`.
    private func userIdBytes(_ sql: String, bind: (SQLiteStatement) throws -> Void) throws -> Set<[UInt8]> {
        try db.withStatement(sql) { row in
            try bind(row)
            var ids: Set<[UInt8]> = []
            while try row.step() { ids.insert(Array(row.string(0).utf8)) }
            return ids
        }
    }

    /// ?1 app id, ?2 room id, ?3 the message's time, ?4 a limit: the users whose membership read position
    /// reached it (a range of `room_members_by_read`).
    static let readersSQL = UnreadSQL.readers(app: "?1", room: "?2", time: "?3", fromDitto: false) + " LIMIT ?4"
    /// ``readersSQL`` for a Ditto app: the users' subscriptions (`ditto_subscriptions_by_read`).
    static let readersDittoSQL = UnreadSQL.readers(app: "?1", room: "?2", time: "?3", fromDitto: true) + " LIMIT ?4"
    /// ?1 app id, ?2 room id, ?3 a JSON array of user ids, ?4 the message's time: those of the users whose
    /// membership read position reached it (a seek of the primary key each).
    static let readersAmongSQL =
        "SELECT value FROM json_each(?3) WHERE "
        + UnreadSQL.readReached(app: "?1", room: "?2", user: "value", time: "?4", fromDitto: false)
    /// ``readersAmongSQL`` for a Ditto app: the users' subscriptions.
    static let readersAmongDittoSQL =
        "SELECT value FROM json_each(?3) WHERE "
        + UnreadSQL.readReached(app: "?1", room: "?2", user: "value", time: "?4", fromDitto: true)

    /// Leases a run to `owner` until `until`: one row, however many jobs the run holds.
    private func lease(_ run: LeaseRun, appId: String, until: Date, owner: String) throws {
        try db.withStatement(
            """
            INSERT INTO delivery_leases (app_id, next_attempt_at, first_id, last_id, lease_until, lease_owner)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """
        ) {
            try $0.bind(1, appId)
            try $0.bind(2, run.nextAttemptAt)
            try $0.bind(3, run.first)
            try $0.bind(4, run.last)
            try $0.bind(5, until)
            try $0.bind(6, owner)
            try $0.run()
        }
    }

    /// Drops `appId`'s leases that ended before `now` (epoch MILLISECONDS): whether one of them still held a
    /// pending delivery, which may lie behind the claim's cursor.
    private func dropEndedLeases(appId: String, now: Int64) throws -> Bool {
        let held = try db.withStatement(
            """
            SELECT EXISTS (
                SELECT 1 FROM delivery_leases AS l
                JOIN deliveries AS d INDEXED BY deliveries_due
                    ON d.status = 'pending' AND \(LeaseSQL.covers(lease: "l", delivery: "d"))
                WHERE l.app_id = ?1 AND l.lease_until < ?2
            )
            """
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, now)
            return try row.step() && row.int(0) != 0
        }
        try db.withStatement("DELETE FROM delivery_leases WHERE app_id = ?1 AND lease_until < ?2") {
            try $0.bind(1, appId)
            try $0.bind(2, now)
            try $0.run()
        }
        return held
    }

    /// `appId`'s live leases at `now` (epoch MILLISECONDS) that could cover a due row after `cursor` (all of
    /// them without one).
    private func liveLeases(appId: String, now: Int64, after cursor: ClaimCursor?) throws -> [LeaseRun] {
        try db.withStatement(Self.liveLeasesSQL) { row in
            try row.bind(1, appId)
            try row.bind(2, now)
            try row.bind(3, cursor?.nextAttemptAt ?? Int64.min)
            try row.bind(4, cursor?.id ?? Int64.min)
            var runs: [LeaseRun] = []
            while try row.step() {
                runs.append(LeaseRun(nextAttemptAt: row.int64(0), first: row.int64(1), last: row.int64(2)))
            }
            return runs
        }
    }

    /// ?1 app id, ?2 now, ?3 and ?4 the cursor's due time and id (epoch MILLISECONDS): the live leases of
    /// runs that reach past the cursor. A range of `delivery_leases_by_run`.
    static let liveLeasesSQL = """
        SELECT next_attempt_at, first_id, last_id FROM delivery_leases
        WHERE app_id = ?1 AND next_attempt_at >= ?3 AND (next_attempt_at > ?3 OR last_id > ?4)
            AND lease_until >= ?2
        """

    /// Up to `limit` of `appId`'s pending deliveries due at `now` after `cursor` (from the first without
    /// one), oldest due first, with their devices.
    private func dueDeliveries(
        appId: String,
        now: Date,
        after cursor: ClaimCursor?,
        limit: Int
    ) throws
        -> [DueDelivery]
    {
        var due: [DueDelivery] = []
        if let cursor {
            // The rest of the cursor's due time first: one fan-out's rows all share it.
            try db.withStatement(Self.dueAtSQL) { row in
                try row.bind(1, cursor.nextAttemptAt)
                try row.bind(2, limit)
                try row.bind(3, appId)
                try row.bind(4, cursor.id)
                while try row.step() { due.append(try DueDelivery(row)) }
            }
        }
        guard due.count < limit else { return due }
        try db.withStatement(Self.dueAfterSQL) { row in
            try row.bind(1, now)
            try row.bind(2, limit - due.count)
            try row.bind(3, appId)
            try row.bind(4, cursor?.nextAttemptAt ?? Int64.min)
            while try row.step() { due.append(try DueDelivery(row)) }
        }
        return due
    }

    private static let dueColumns = """
        SELECT \(ClaimedDelivery.columns(delivery: "dl", device: "d")), d.unlinked_topics, dl.next_attempt_at
        FROM deliveries AS dl
        LEFT JOIN devices AS d INDEXED BY devices_by_user_state
            ON d.app_id = dl.app_id AND d.user_id = dl.user_id AND d.token = dl.token
        """

    /// The claim's query for later due times: ?1 now, ?2 limit, ?3 the app id, ?4 due after this (epoch
    /// MILLISECONDS). A range of `deliveries_due`.
    static let dueAfterSQL =
        dueColumns + """

            WHERE dl.app_id = ?3 AND dl.status = 'pending' AND dl.next_attempt_at > ?4 AND dl.next_attempt_at <= ?1
            ORDER BY dl.next_attempt_at, dl.id
            LIMIT ?2
            """

    /// The claim's query within one due time: ?1 that time (epoch MILLISECONDS), ?2 limit, ?3 the app id,
    /// ?4 after this delivery id. A range of `deliveries_due` (SQLite seeks on both; it would not for the
    /// row value `(next_attempt_at, id) > (?, ?)`).
    static let dueAtSQL =
        dueColumns + """

            WHERE dl.app_id = ?3 AND dl.status = 'pending' AND dl.next_attempt_at = ?1 AND dl.id > ?4
            ORDER BY dl.id
            LIMIT ?2
            """

    public func releaseLeases(owner: String) async throws {
        claimCursors.removeAll()
        try db.transaction {
            try db.withStatement(LeaseSQL.endOwnerSQL(parameter: { "?\($0)" })) {
                try $0.bind(1, owner)
                try $0.run()
            }
            try db.withStatement(
                "UPDATE feedback SET lease_until = NULL, lease_owner = NULL WHERE lease_owner = ?1"
            ) {
                try $0.bind(1, owner)
                try $0.run()
            }
            try db.withStatement(Self.badgeUpdateSQL.releaseOwnerSQL) {
                try $0.bind(1, owner)
                try $0.run()
            }
        }
    }

    /// Releases the pending deliveries of `deliveryIds` from `owner`'s leases: each lease that covers one
    /// ends (``RelayStore/LeaseRun/ended``: the next claim of the app, of any store on the file, starts from
    /// the beginning and finds the released rows) and is replaced by the runs of its other deliveries
    /// (``RelayStore/HeldLease/handingBack(_:)``), which may still be in flight.
    public func releaseClaims(_ deliveryIds: [Int64], owner: String) async throws {
        guard !deliveryIds.isEmpty else { return }
        claimCursors.removeAll()
        try db.transaction {
            var covered: [(lease: HeldLease, id: Int64)] = []
            for id in deliveryIds {
                try db.withStatement(LeaseSQL.heldSQL(ids: "= ?1", owner: "?2")) { row in
                    try row.bind(1, id)
                    try row.bind(2, owner)
                    while try row.step() { covered.append(try HeldLease.covering(row: row)) }
                }
            }
            for (lease, keeps) in HeldLease.handingBack(covered) {
                try db.withStatement(LeaseSQL.endSQL(parameter: { "?\($0)" })) {
                    try $0.bind(1, lease.appId)
                    try $0.bind(2, lease.run.nextAttemptAt)
                    try $0.bind(3, lease.run.first)
                    try $0.bind(4, lease.run.last)
                    try $0.bind(5, owner)
                    try $0.run()
                }
                for run in keeps {
                    try self.lease(run, appId: lease.appId, until: SQLiteStatement.date(lease.until), owner: owner)
                }
            }
        }
    }

    public func pendingDeliveryCount() async throws -> Int {
        Int(try db.scalar("SELECT count(*) FROM deliveries WHERE status = 'pending'"))
    }

    /// Whether any delivery is pending, in constant time (``pendingDeliveryCount()`` walks them all).
    public func hasPendingDeliveries() async throws -> Bool {
        try db.scalar("SELECT EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending')") != 0
    }

    public func complete(_ results: [(deliveryId: Int64, outcome: DeliveryOutcome)], at: Date) async throws {
        guard !results.isEmpty else { return }
        // Accepted pushes, the bulk of a fan-out, are recorded a run of consecutive ids per statement: a batch
        // holds the results of sends claimed in id order, so its sent ids are long runs.
        var sent: [Int64] = []
        try db.transaction {
            for (deliveryId, outcome) in results {
                if case .sent = outcome {
                    sent.append(deliveryId)
                } else {
                    try apply(outcome, to: deliveryId, at: at)
                }
            }
            sent.sort()
            var start = 0
            while start < sent.count {
                var end = start
                while end + 1 < sent.count, sent[end + 1] <= sent[end] + 1 { end += 1 }
                try recordSent(sent[start]...sent[end], at: at)
                start = end + 1
            }
        }
    }

    private func recordSent(_ ids: ClosedRange<Int64>, at: Date) throws {
        try db.withStatement(Self.recordSentRunSQL) {
            try $0.bind(1, ids.lowerBound)
            try $0.bind(2, ids.upperBound)
            try $0.bind(3, at)
            try $0.run()
        }
    }

    /// Records a run of accepted pushes, ?1 to ?2 (every id between them is in the batch), at ?3 (epoch
    /// MILLISECONDS): what ``recordResultSQL`` records for a 200, for each that takes a result
    /// (``RelayStore/DeliveryStatus/takesResultSQL``). A delivery cancelled while it was in flight (its
    /// message deleted) stays `cancelled`.
    static let recordSentRunSQL = """
        UPDATE deliveries SET status = CASE WHEN status = 'cancelled' THEN status ELSE 'sent' END,
            attempts = attempts + 1, last_status = 200,
            last_reason = CASE WHEN status = 'cancelled' THEN last_reason END,
            sent_at = ?3, next_attempt_at = NULL, updated_at = ?3
        WHERE id BETWEEN ?1 AND ?2 AND \(DeliveryStatus.takesResultSQL)
        """

    /// ``RelayStore/ClaimedDelivery/undeliverable(unlinked:)`` for a due row sent as `sendAs`.
    private static func undeliverable(
        _ delivery: DueDelivery,
        sendAs: String
    ) throws -> (status: DeliveryStatus, reason: String)? {
        try delivery.claimed.undeliverable(unlinked: try StoredValues.unlinked(delivery.unlinked).contains(sendAs))
    }

    /// Ends a delivery that is not sent (see ``undeliverable(_:sendAs:)``); attempts stay as they were.
    private func settle(_ deliveryId: Int64, status: DeliveryStatus, reason: String, at: Date) throws {
        try db.withStatement(
            """
            UPDATE deliveries SET status = ?2, last_reason = ?3, updated_at = ?4, next_attempt_at = NULL
            WHERE id = ?1
            """
        ) {
            try $0.bind(1, deliveryId)
            try $0.bind(2, status.rawValue)
            try $0.bind(3, reason)
            try $0.bind(4, at)
            try $0.run()
        }
    }

    /// ?1 a delivery id: the last notification whose run of delivery ids starts at or before it (one seek in
    /// `notifications_by_deliveries`); the delivery is its when the run also ends at or after it.
    static let notificationOfDeliverySQL = """
        SELECT \(NotificationContent.columns()), first_delivery_id, last_delivery_id
        FROM notifications WHERE first_delivery_id <= ?1 ORDER BY first_delivery_id DESC LIMIT 1
        """

    /// The notification `delivery` belongs to: the one whose run of delivery ids holds its id.
    /// - Throws: ``StoreError`` `.invalidData` when no notification holds it or its row is invalid.
    private func loadNotification(of delivery: DueDelivery) throws -> NotificationRun {
        try db.withStatement(Self.notificationOfDeliverySQL) { row in
            try row.bind(1, delivery.id)
            let run = NotificationContent.columnCount  // then: first and last delivery id
            guard try row.step(), row.int64(run + 1) >= delivery.id else {
                throw StoreError(code: .invalidData, message: "delivery \(delivery.id) has no notification")
            }
            return NotificationRun(
                deliveries: row.int64(run)...row.int64(run + 1),
                content: try NotificationContent(row: row)
            )
        }
    }

    /// One attempt's result other than an accepted push (``recordSentRunSQL``): ?1 delivery id, ?2 status,
    /// ?3 APNs status, ?4 reason, ?5 next attempt at, ?6 now (times epoch MILLISECONDS), ?7 the attempts it
    /// counts (0 for a deferral), ?8 whether it was held unsent
    /// (``RelayStore/DeliveryOutcome/isHeldUnsent``): the last answer's status and reason stay. A retry is
    /// due at least a millisecond after the due time it was claimed at, so it leaves its run's lease even when
    /// it comes back at once (ExpiredProviderToken) within that millisecond. A delivery cancelled while it was
    /// in flight stays `cancelled` and is never due again; one ended otherwise is left as it is
    /// (``RelayStore/DeliveryStatus/takesResultSQL``).
    static let recordResultSQL = """
        UPDATE deliveries SET status = CASE WHEN status = 'cancelled' THEN status ELSE ?2 END,
            attempts = attempts + ?7, last_status = CASE WHEN ?8 THEN last_status ELSE ?3 END,
            last_reason = CASE WHEN status = 'cancelled' OR ?8 THEN last_reason ELSE ?4 END,
            next_attempt_at = CASE WHEN ?5 IS NULL OR status = 'cancelled' THEN NULL
                ELSE max(?5, next_attempt_at + 1) END,
            updated_at = ?6
        WHERE id = ?1 AND \(DeliveryStatus.takesResultSQL)
        """

    /// Records one outcome (inside ``complete(_:at:)``'s transaction). A dead token or a refused identity
    /// reaches the device whether or not the delivery took the result: it is what the push service said of
    /// the token.
    private func apply(_ outcome: DeliveryOutcome, to deliveryId: Int64, at: Date) throws {
        let status: DeliveryStatus
        var lastStatus: Int?
        var lastReason: String?
        var nextAttemptAt: Date?
        var attempts = 1
        switch outcome {
        case .sent:
            return try recordSent(deliveryId...deliveryId, at: at)
        case .retry(let retryAt, let code, let reason):
            (status, lastStatus, lastReason, nextAttemptAt) = (.pending, code, reason, retryAt)
        case .deferred(let retryAt, let code, let reason):
            (status, lastStatus, lastReason, nextAttemptAt, attempts) = (.pending, code, reason, retryAt, 0)
        case .failed(let code, let reason):
            (status, lastStatus, lastReason) = (.failed, code, reason)
        case .retired(let code, let reason, _):
            (status, lastStatus, lastReason) = (.retired, code, reason)
        case .unlink(_, let code, let reason):
            (status, lastStatus, lastReason) = (.failed, code, reason)
        }
        try db.withStatement(Self.recordResultSQL) { row in
            try row.bind(1, deliveryId)
            try row.bind(2, status.rawValue)
            try row.bind(3, lastStatus)
            try row.bind(4, lastReason)
            try row.bind(5, nextAttemptAt)
            try row.bind(6, at)
            try row.bind(7, attempts)
            try row.bind(8, outcome.isHeldUnsent)
            try row.run()
        }
        switch outcome {
        case .retired(_, let reason, let invalidSince):
            guard let device = try device(of: deliveryId) else { return }
            try retireDevice(device, reason: reason, invalidSince: invalidSince, at: at)
        case .unlink(let sendAs, _, _):
            guard let device = try device(of: deliveryId) else { return }
            try unlink(sendAs, device: device)
        case .sent, .retry, .deferred, .failed:
            break
        }
    }

    /// The (app, token) a delivery was for; nil for an unknown delivery id.
    private func device(of deliveryId: Int64) throws -> (appId: String, token: String)? {
        try db.withStatement("SELECT app_id, token FROM deliveries WHERE id = ?1") { row in
            try row.bind(1, deliveryId)
            return try row.step() ? (row.string(0), row.string(1)) : nil
        }
    }

    /// Retires a live device (unless it registered again after `invalidSince`) and queues its feedback when
    /// the app has a feedback URL (``FeedbackPolicy``), in the same transaction. Its pending deliveries are
    /// settled when claimed.
    func retireDevice(
        _ device: (appId: String, token: String),
        reason: String,
        invalidSince: Date,
        at: Date
    ) throws {
        try db.withStatement(
            """
            UPDATE devices SET state = 'retired', retired_at = ?3, retired_reason = ?4, apns_timestamp = ?5
            WHERE app_id = ?1 AND token = ?2 AND state = 'live' AND updated_at <= ?5
            """
        ) {
            try $0.bind(1, device.appId)
            try $0.bind(2, device.token)
            try $0.bind(3, at)
            try $0.bind(4, reason)
            try $0.bind(5, invalidSince)
            try $0.run()
        }
        guard db.changes > 0 else { return }
        try enqueueFeedback(appId: device.appId, token: device.token, at: at)
        let userId = try db.withStatement("SELECT user_id FROM devices WHERE app_id = ?1 AND token = ?2") {
            try $0.bind(1, device.appId)
            try $0.bind(2, device.token)
            return try $0.step() ? $0.string(0) : nil
        }
        try refreshUnreadTotals(appId: device.appId, userIds: userId.map { [$0] } ?? [])
    }

    /// Unlinks the device's token from identity `sendAs` (adds it to the `unlinked_topics` column). Its
    /// pending deliveries sent as it are settled when claimed.
    func unlink(_ sendAs: String, device: (appId: String, token: String)) throws {
        try db.withStatement(
            """
            UPDATE devices SET unlinked_topics = json_insert(unlinked_topics, '$[#]', ?3)
            WHERE app_id = ?1 AND token = ?2
                AND NOT EXISTS (SELECT 1 FROM json_each(devices.unlinked_topics) WHERE value = ?3)
            """
        ) {
            try $0.bind(1, device.appId)
            try $0.bind(2, device.token)
            try $0.bind(3, sendAs)
            try $0.run()
        }
    }
}

/// A due delivery as the claim reads it (``RelayStore/ClaimedDelivery``), with the identities its device's
/// token is unlinked from and its due time.
private struct DueDelivery {
    var claimed: ClaimedDelivery
    /// The `unlinked_topics` column: a JSON array of strings ("" when there is no device, never decoded).
    var unlinked: String
    /// Epoch MILLISECONDS.
    var nextAttemptAt: Int64

    var id: Int64 { claimed.id }

    /// Reads a row of ``SQLiteStore/dueColumns``.
    init(_ row: SQLiteStatement) throws {
        claimed = try ClaimedDelivery(row: row)
        unlinked = row.string(ClaimedDelivery.columnCount)
        nextAttemptAt = row.int64(ClaimedDelivery.columnCount + 1)
    }
}

/// A notification as claims read it: its run of delivery ids and the content its jobs share.
private struct NotificationRun {
    var deliveries: ClosedRange<Int64>
    var content: NotificationContent
}
