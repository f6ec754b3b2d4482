import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// Planned at each call, not prepared: a plan kept from a time `deliveries` was small (its statistics
    /// taken when it was nearly empty, as after a quiet spell) scans the whole table for the smallest app id,
    /// where a plan made at the call seeks the index. The claim loop reads the due apps a few times a second
    /// at most, so planning costs little.
    public func appsWithDueDeliveries(now: Date) async throws -> [String] {
        let rows = try db.query(Self.dueAppsSQL, now)
        return rows.all.map { $0.string(0) }
    }

    /// The apps with a due delivery that holds no live lease at $1 (epoch MILLISECONDS), by app id. A loose
    /// index scan over `deliveries_due` (app id first): one seek per app with a pending delivery, then, for
    /// each, a range of its due rows down to the last one not leased (leased rows are those in flight: a
    /// few batches per relay), however many deliveries are pending. Both read the index backwards: rows are
    /// claimed and sent from its start, and a sent row's entry stays there until the next vacuum, so a read
    /// from the start walks past every row sent since then, where one from the end meets the newest rows,
    /// not yet claimed. Each app id is the first row of the index read backwards, not `max(app_id)`: when
    /// the statistics say a row or so is pending (autovacuum's analyze after a fan-out is sent), the planner
    /// takes a plain aggregate over the whole index for as cheap as the seek `max` stands for. The probe per
    /// app is a scalar subquery in the index's order, so it stays one short range scan whatever the
    /// statistics say (a semi-join hashed every due row when they said the app had a handful).
    static let dueAppsSQL = """
        WITH RECURSIVE app(id) AS (
            SELECT (SELECT app_id FROM deliveries WHERE status = 'pending' ORDER BY app_id DESC LIMIT 1)
            UNION ALL
            SELECT (SELECT app_id FROM deliveries WHERE status = 'pending' AND app_id < app.id
                ORDER BY app_id DESC LIMIT 1)
            FROM app WHERE app.id IS NOT NULL
        )
        SELECT id FROM app
        WHERE id IS NOT NULL AND (
            SELECT true FROM deliveries AS dl
            WHERE status = 'pending' AND app_id = app.id AND next_attempt_at <= $1
                AND NOT \(leased(delivery: "dl", now: "$1"))
            ORDER BY next_attempt_at DESC, id DESC LIMIT 1
        )
        ORDER BY id
        """

    /// Whether the pending delivery `delivery` (a row of `deliveries`) is leased at `now` (epoch
    /// MILLISECONDS; both SQL expressions): a live lease's run covers it (``RelayStore/LeaseRun``). The runs of
    /// one due time never overlap (a claim drops the app's ended leases before it leases rows no run covers),
    /// save a handed-back lease, ended, and the runs kept from it, which may end at the same id; so the one
    /// that could cover it is the first to end at or after its id, the live one first among equals: a scalar
    /// subquery in the order of `delivery_leases_by_run`, one seek however many leases there are (a join read
    /// every lease for every due row when the statistics said the due rows were few; a planner that takes
    /// the table for small may still read it whole, as two of nine sampled claims of a fan-out did),
    /// its expiry checked on the lease found, not filtered in the read (statistics whose lease ends all lie
    /// before `now`, as they soon do, made that read look empty and planned it as a read of every lease).
    static func leased(delivery: String, now: String) -> String {
        """
        coalesce((SELECT l.first_id <= \(delivery).id AND l.lease_until >= \(now) FROM delivery_leases AS l
            WHERE l.app_id = \(delivery).app_id AND l.next_attempt_at = \(delivery).next_attempt_at
                AND l.last_id >= \(delivery).id
            ORDER BY l.last_id, l.lease_until DESC LIMIT 1), false)
        """
    }

    /// Whether the pending delivery `delivery` (a row of app $1's `deliveries`) holds no live lease at $2
    /// (epoch MILLISECONDS): its id is past the last one any live lease of the app covers, or else
    /// ``leased(delivery:now:)`` says no. The last id is read once per statement, from each of the app's
    /// live leases (no index holds them in that order; ended ones are dropped first). A claim reads on from
    /// its cursor, past the runs it leased itself, so during a fan-out the rows it reads lie past them all and
    /// take no seek of their own.
    static func unleased(delivery: String) -> String {
        """
        (\(delivery).id > (SELECT coalesce(max(l.last_id), 0) FROM delivery_leases AS l
            WHERE l.app_id = $1 AND l.lease_until >= $2) OR NOT \(leased(delivery: delivery, now: "$2")))
        """
    }

    /// Up to $3 of app $1's pending deliveries due at $2 after ($4, $5) in the due order (due time, id) that
    /// no live lease covers (``unleased(delivery:)``), with their device (NULL columns: deleted, or registered
    /// again for another user) and notification, the message's time (whose readers the claim reads once per
    /// notification, ``RelayStore/ClaimReads``) and their due time. A range of `deliveries_due`, then a seek
    /// per row it keeps: the one plan right at any size, so it is prepared, and planned only inside a claim's
    /// transaction, which turns off the other ways to read and join (``claimLockSQL``). PostgreSQL keeps one
    /// generic plan per connection after a few calls, made from the statistics and sizes of that moment; left
    /// free, a plan made while `deliveries` was nearly empty scans and sorts the whole table until the next
    /// analyze. All times epoch MILLISECONDS.
    static let claimSQL = """
        WITH due AS (
            SELECT dl.id, dl.app_id, dl.user_id, dl.token, dl.attempts, dl.next_attempt_at, dl.notification_id
            FROM deliveries AS dl
            WHERE dl.app_id = $1 AND dl.status = 'pending' AND dl.next_attempt_at <= $2
                AND (dl.next_attempt_at, dl.id) > ($4, $5) AND \(unleased(delivery: "dl"))
            ORDER BY dl.next_attempt_at, dl.id
            LIMIT $3
        )
        SELECT \(ClaimedDelivery.columns(delivery: "l", device: "d")), d.unlinked_topics ? n.topic,
            \(NotificationContent.columns(of: "n")), l.next_attempt_at
        FROM due AS l
        JOIN notifications AS n ON n.id = l.notification_id
        LEFT JOIN devices AS d ON d.app_id = l.app_id AND d.token = l.token AND d.user_id = l.user_id
        ORDER BY l.next_attempt_at, l.id
        """

    /// $1 app id, $2 a JSON array of reads (``ReadersRead``): for each, by its index `i`, the users whose read
    /// position reached its message's time, at most its limit (a range of `room_members_by_read` each).
    static let readersSQL = readers(fromDitto: false)
    /// ``readersSQL`` for a Ditto app: the users' subscriptions (`ditto_subscriptions_by_read`).
    static let readersDittoSQL = readers(fromDitto: true)

    private static func readers(fromDitto: Bool) -> String {
        """
        SELECT m.i, r.user_id FROM jsonb_to_recordset($2::jsonb) AS m (i int, room text, at bigint, lim bigint)
        CROSS JOIN LATERAL (\(UnreadSQL.readers(app: "$1", room: "m.room", time: "m.at", fromDitto: fromDitto))
            LIMIT m.lim) AS r
        """
    }

    /// $1 app id, $2 room id, $3 a JSON array of user ids, $4 the message's time: those of the users whose
    /// read position reached it (a seek of each user's position).
    static let readersAmongSQL = readersAmong(fromDitto: false)
    /// ``readersAmongSQL`` for a Ditto app: the users' subscriptions.
    static let readersAmongDittoSQL = readersAmong(fromDitto: true)

    private static func readersAmong(fromDitto: Bool) -> String {
        "SELECT u.id FROM jsonb_array_elements_text($3::jsonb) AS u (id) WHERE "
            + UnreadSQL.readReached(app: "$1", room: "$2", user: "u.id", time: "$4", fromDitto: fromDitto)
    }

    /// Claims in one transaction, after any other claim of the app (an advisory lock: two claims reading
    /// the same unleased rows would both take them), and leases what it takes a run at a time
    /// (``RelayStore/LeaseRun``), one `delivery_leases` row per run: a run holds consecutive ids only, so it
    /// covers no row this claim did not read (ids are not committed in their order). A due delivery that can
    /// no longer be sent is ended there and the claim reads on, so that fewer than `limit` jobs means no more
    /// were due. Each app's claims go on from where the last one stopped (``RelayStore/ClaimCursor``); one
    /// that reaches the end starts the next from the beginning.
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
        let nowMilliseconds = EpochMilliseconds.of(now)
        let (jobs, cursor) = try db.transaction {
            try db.query(prepared: Self.claimLockSQL, appId)
            // Read under the lock: the relay's other connections may have claimed the app meanwhile.
            var cursor = ClaimCursor.live(claimCursors[appId], now: nowMilliseconds, leaseSeconds: leaseSeconds)
            if try db.query(prepared: Self.dropEndedLeasesSQL, appId, now)[0].bool(0) { cursor = nil }
            var jobs: [DeliveryJob] = []
            var notifications: [String: Int] = [:]  // each notification id's index in `contents`
            var contents: [NotificationContent] = []  // one per notification, shared by its jobs
            var messages: [ClaimReads.Message?] = []  // each notification's message, nil for a removal
            var messageOfJob: [Int] = []  // each job's index in `contents` and `messages`
            var userIds: [String] = []  // each job's recipient, for the reads and the badges
            var runs: [LeaseRun] = []
            while jobs.count < limit {
                let wanted = limit - jobs.count
                let rows = try db.query(
                    prepared: Self.claimSQL,
                    appId,
                    now,
                    wanted,
                    cursor?.nextAttemptAt ?? Int64.min,
                    cursor?.id ?? Int64.min
                )
                var ended: [EndedDelivery] = []
                for row in rows.all {
                    let claimed = try ClaimedDelivery(row: row)
                    let column = ClaimedDelivery.columnCount  // then: unlinked, content, due time
                    let nextAttemptAt = try row.int64(column + 1 + NotificationContent.columnCount)
                    cursor = .after(cursor, nextAttemptAt: nextAttemptAt, id: claimed.id, now: nowMilliseconds)
                    if let last = runs.last, last.nextAttemptAt == nextAttemptAt, last.last == claimed.id - 1 {
                        runs[runs.count - 1].last = claimed.id
                    } else {
                        runs.append(LeaseRun(nextAttemptAt: nextAttemptAt, first: claimed.id, last: claimed.id))
                    }
                    if let end = try claimed.undeliverable(unlinked: try row.bool(column)) {
                        ended.append(EndedDelivery(id: claimed.id, status: end.status.rawValue, reason: end.reason))
                        continue
                    }
                    let id = row.string(column + 1)  // decoded with the content, once per notification
                    let index: Int
                    if let known = notifications[id] {
                        index = known
                    } else {
                        index = contents.count
                        notifications[id] = index
                        let content = try NotificationContent(row: row, from: column + 1)
                        contents.append(content)
                        messages.append(ClaimReads.Message(content))
                    }
                    jobs.append(try claimed.job(appId: appId, content: contents[index]))
                    messageOfJob.append(index)
                    userIds.append(claimed.userId)
                }
                try settle(ended, at: now)
                if rows.count < wanted {
                    cursor = nil
                    break
                }
            }
            let read = try ClaimReads.cancelRead(
                &jobs,
                userIds: userIds,
                messageOfJob: messageOfJob,
                messages: messages,
                ranges: { try readers($0, appId: appId) },
                among: { try readers(of: $0, appId: appId, among: $1) }
            )
            let cancelled = (DeliveryStatus.cancelled.rawValue, CancelReason.read.rawValue)
            try settle(read.map { EndedDelivery(id: $0, status: cancelled.0, reason: cancelled.1) }, at: now)
            try insertLeases(runs, appId: appId, until: EpochMilliseconds.of(leaseUntil), owner: owner)
            let badged = try unreadPolicy.badged(jobs, userIds: userIds, appId: appId) {
                try claimedTotals(appId: appId, userIds: $0)
            }
            return (badged, cursor)
        }
        claimCursors[appId] = cursor
        return jobs
    }

    /// Drops app $1's leases that ended before $2 (epoch MILLISECONDS): whether one of them still held a
    /// pending delivery, which may lie behind the claim's cursor (a lease whose deliveries were all sent
    /// leaves the cursor as it is: going back would read past every row sent since the last vacuum). A seek
    /// of `deliveries_due` per lease dropped: a scalar subquery in the index's order, whatever the statistics
    /// say (as a join, it was planned as a read of every pending row per lease). That read is planned alike
    /// for any values and the delete reads at most the lease table, so it is prepared.
    static let dropEndedLeasesSQL = """
        WITH ended AS (
            DELETE FROM delivery_leases WHERE app_id = $1 AND lease_until < $2
            RETURNING app_id, next_attempt_at, first_id, last_id
        )
        SELECT coalesce(bool_or((
            SELECT true FROM deliveries AS d
            WHERE d.status = 'pending' AND \(LeaseSQL.covers(lease: "l", delivery: "d"))
            ORDER BY d.next_attempt_at, d.id LIMIT 1
        )), false)
        FROM ended AS l
        """

    /// Leases `runs` of `appId` to `owner` until `until` (epoch MILLISECONDS): one row each, in one statement.
    private func insertLeases(_ runs: [LeaseRun], appId: String, until: Int64, owner: String) throws {
        guard !runs.isEmpty else { return }
        try db.query(
            prepared: """
                INSERT INTO delivery_leases (app_id, next_attempt_at, first_id, last_id, lease_until, lease_owner)
                SELECT $1, r."nextAttemptAt", r.first, r.last, $2, $3
                FROM jsonb_to_recordset($4::jsonb) AS r ("nextAttemptAt" bigint, first bigint, last bigint)
                """,
            appId,
            until,
            owner,
            try StoredValues.jsonList(runs)
        )
    }

    /// For each of `reads`, the users who read its message's room of `appId` up to its time, at most its
    /// limit (``readersSQL``, one statement). Prepared, as is ``readersAmongSQL``: they run only inside a
    /// claim's transaction, where any plan kept reads index ranges and seeks (``claimLockSQL``).
    private func readers(
        _ reads: [(message: ClaimReads.Message, limit: Int)],
        appId: String
    ) throws -> [Set<[UInt8]>] {
        let sql = unreadPolicy.dittoAppIds.contains(appId) ? Self.readersDittoSQL : Self.readersSQL
        let asked = reads.enumerated().map { i, read in
            ReadersRead(i: i, room: read.message.roomId, at: EpochMilliseconds.of(read.message.time), lim: read.limit)
        }
        var found = [Set<[UInt8]>](repeating: [], count: reads.count)
        for row in try db.query(prepared: sql, appId, try StoredValues.jsonList(asked)).all {
            found[try row.int(0)].insert(Array(row.string(1).utf8))
        }
        return found
    }

    /// Those of `among` who read `message`'s room of `appId` up to its time (``readersAmongSQL``).
    private func readers(of message: ClaimReads.Message, appId: String, among: [String]) throws -> Set<[UInt8]> {
        let sql = unreadPolicy.dittoAppIds.contains(appId) ? Self.readersAmongDittoSQL : Self.readersAmongSQL
        let users = try StoredValues.jsonList(among)
        let rows = try db.query(prepared: sql, appId, message.roomId, users, message.time)
        return Set(rows.all.map { Array($0.string(0).utf8) })
    }

    /// Ends the claimed rows that cannot be sent, in one statement; attempts stay as they were.
    private func settle(_ ended: [EndedDelivery], at: Date) throws {
        guard !ended.isEmpty else { return }
        try db.query(
            """
            UPDATE deliveries AS dl SET status = e.status, last_reason = e.reason, updated_at = $2,
                next_attempt_at = NULL
            FROM jsonb_to_recordset($1::jsonb) AS e (id bigint, status text, reason text)
            WHERE dl.id = e.id
            """,
            try StoredValues.jsonList(ended),
            at
        )
    }

    /// Ends `owner`'s leases (``RelayStore/LeaseRun/ended``), at start-up; other owners' stay as they are.
    public func releaseLeases(owner: String) async throws {
        try db.transaction {
            let released = try db.query(LeaseSQL.endOwnerSQL(parameter: { "$\($0)" }), owner)
            try db.query("UPDATE feedback SET lease_until = NULL, lease_owner = NULL WHERE lease_owner = $1", owner)
            try db.query(Self.badgeUpdateSQL.releaseOwnerSQL, owner)
            if released.changed > 0 { try notifyOutbox() }
        }
        claimCursors.removeAll()
    }

    /// Releases the pending deliveries of `deliveryIds` from `owner`'s leases: each lease that covers one
    /// ends (``RelayStore/LeaseRun/ended``: every relay's next claim of the app starts from the beginning and
    /// finds the released rows) and is replaced by the runs of its other deliveries
    /// (``RelayStore/HeldLease/handingBack(_:)``), which may still be in flight.
    public func releaseClaims(_ deliveryIds: [Int64], owner: String) async throws {
        guard !deliveryIds.isEmpty else { return }
        try db.transaction {
            let covered = try db.query(
                LeaseSQL.heldSQL(ids: "= \(Self.anyId(of: "$1"))", owner: "$2"),
                try StoredValues.jsonList(deliveryIds),
                owner
            )
            let leases = try covered.all.map { try HeldLease.covering(row: $0) }
            for (lease, keeps) in HeldLease.handingBack(leases) {
                try db.query(
                    LeaseSQL.endSQL(parameter: { "$\($0)" }),
                    lease.appId,
                    lease.run.nextAttemptAt,
                    lease.run.first,
                    lease.run.last,
                    owner
                )
                try insertLeases(keeps, appId: lease.appId, until: lease.until, owner: owner)
            }
            if !leases.isEmpty { try notifyOutbox() }
        }
        claimCursors.removeAll()
    }

    public func pendingDeliveryCount() async throws -> Int {
        try db.query("SELECT count(*) FROM deliveries WHERE status = 'pending'")[0].int(0)
    }

    /// The last row in `deliveries_due`'s order: a seek of the index from its end, where the newest pending
    /// row is (why not from its start: ``dueAppsSQL``). Planned at each call: a plan kept from when the table
    /// was nearly empty read every row.
    public func hasPendingDeliveries() async throws -> Bool {
        try db.query(Self.pendingProbeSQL)[0].bool(0)
    }

    static let pendingProbeSQL = """
        SELECT (SELECT user_id FROM deliveries WHERE status = 'pending'
            ORDER BY app_id DESC, next_attempt_at DESC, id DESC LIMIT 1) IS NOT NULL
        """

    public func complete(_ results: [(deliveryId: Int64, outcome: DeliveryOutcome)], at: Date) async throws {
        guard !results.isEmpty else { return }
        // Accepted pushes, the bulk of a fan-out, are recorded in one statement: a transaction of its own
        // when they are all the batch holds (two round trips fewer). Here and in `apply`, a delivery cancelled
        // while it was in flight (its message deleted) stays `cancelled`.
        let sent = results.compactMap { result -> Int64? in
            if case .sent = result.outcome { return result.deliveryId }
            return nil
        }
        guard sent.count < results.count else { return try recordSent(sent, at: at) }
        try db.transaction {
            for (deliveryId, outcome) in results {
                if case .sent = outcome { continue }
                try apply(outcome, to: deliveryId, at: at)
            }
            if !sent.isEmpty { try recordSent(sent, at: at) }
        }
    }

    private func recordSent(_ deliveryIds: [Int64], at: Date) throws {
        try db.query(prepared: Self.recordSentSQL, try StoredValues.jsonList(deliveryIds), at)
    }

    /// Records accepted pushes: $1 their delivery ids (a JSON array), $2 the time (epoch MILLISECONDS), on
    /// those that take a result (``RelayStore/DeliveryStatus/takesResultSQL``).
    static let recordSentSQL = """
        UPDATE deliveries SET status = CASE WHEN status = 'cancelled' THEN status ELSE 'sent' END,
            attempts = attempts + 1, last_status = 200,
            last_reason = CASE WHEN status = 'cancelled' THEN last_reason END, sent_at = $2,
            next_attempt_at = NULL, updated_at = $2
        WHERE id = \(anyId(of: "$1")) AND \(DeliveryStatus.takesResultSQL)
        """

    /// Any id of the JSON array of ids `list` (an SQL expression; delivery ids, or others of SQL type
    /// `type`), for `id = …`: one seek of an index per id. The array is built by a subquery, whose length the
    /// planner does not guess from the table's statistics: given as `IN (SELECT …)`, a batch was hash-joined
    /// against a scan of the whole table whenever the statistics (as right after a fan-out's insert) made
    /// the table look small.
    static func anyId(of list: String, type: String = "bigint") -> String {
        "ANY (ARRAY(SELECT jsonb_array_elements_text(\(list)::jsonb)::\(type)))"
    }

    /// Records one outcome other than `.sent` (inside ``complete(_:at:)``'s transaction) on a delivery that
    /// takes it (``RelayStore/DeliveryStatus/takesResultSQL``). A retry is due at least a millisecond after
    /// the due time it was claimed at, so it leaves its run's lease even when it comes back at once
    /// (ExpiredProviderToken) within that millisecond. One held unsent keeps its last answer's status and
    /// reason (``RelayStore/DeliveryOutcome/isHeldUnsent``). A dead token or a refused identity reaches the
    /// device whether or not the delivery took the result: it is what the push service said of the token.
    private func apply(_ outcome: DeliveryOutcome, to deliveryId: Int64, at: Date) throws {
        let status: DeliveryStatus
        var lastStatus: Int?
        var lastReason: String?
        var nextAttemptAt: Date?
        var attempts = 1
        switch outcome {
        case .sent:
            (status, lastStatus) = (.sent, 200)
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
        // The device comes from the row as it was, whether or not the update took the result: one round trip.
        let rows = try db.query(
            """
            WITH device AS (SELECT app_id, token FROM deliveries WHERE id = $1),
            result AS (
                UPDATE deliveries SET status = CASE WHEN status = 'cancelled' THEN status ELSE $2 END,
                    attempts = attempts + $7, last_status = CASE WHEN $8 THEN last_status ELSE $3 END,
                    last_reason = CASE WHEN status = 'cancelled' OR $8 THEN last_reason ELSE $4 END,
                    next_attempt_at = CASE WHEN $5::bigint IS NULL OR status = 'cancelled' THEN NULL
                        ELSE greatest($5::bigint, next_attempt_at + 1) END,
                    updated_at = $6
                WHERE id = $1 AND \(DeliveryStatus.takesResultSQL)
            )
            SELECT app_id, token FROM device
            """,
            deliveryId,
            status.rawValue,
            lastStatus,
            lastReason,
            nextAttemptAt,
            at,
            attempts,
            outcome.isHeldUnsent
        )
        guard rows.count > 0 else { return }
        let (appId, token) = (rows[0].string(0), rows[0].string(1))
        switch outcome {
        case .retired(_, let reason, let invalidSince):
            try retireDevice(appId: appId, token: token, reason: reason, invalidSince: invalidSince, at: at)
        case .unlink(let sendAs, _, _):
            try unlink(sendAs, appId: appId, token: token)
        case .sent, .retry, .deferred, .failed:
            break
        }
    }

    /// Unlinks the device's token from identity `sendAs` (adds it to the `unlinked_topics` column). Its
    /// pending deliveries sent as it are ended when claimed.
    func unlink(_ sendAs: String, appId: String, token: String) throws {
        try db.query(
            """
            UPDATE devices SET unlinked_topics = unlinked_topics || jsonb_build_array($3::text)
            WHERE app_id = $1 AND token = $2 AND NOT unlinked_topics ? $3::text
            """,
            appId,
            token,
            sendAs
        )
    }

    /// Retires a live device unless it registered again after `invalidSince` (the `retired` guard), and
    /// queues its feedback when the app has a feedback URL (``RelayStore/FeedbackPolicy``), in the same
    /// transaction. Its pending deliveries are ended when claimed.
    func retireDevice(appId: String, token: String, reason: String, invalidSince: Date, at: Date) throws {
        let retired = try db.query(
            """
            UPDATE devices SET state = 'retired', retired_at = $3, retired_reason = $4, apns_timestamp = $5
            WHERE app_id = $1 AND token = $2 AND state = 'live' AND updated_at <= $5
            RETURNING user_id
            """,
            appId,
            token,
            at,
            reason,
            invalidSince
        )
        guard retired.count > 0 else { return }
        try enqueueFeedback(appId: appId, token: token, at: at)
        try refreshUnreadTotals(appId: appId, userIds: [retired[0].string(0)])
    }
}

/// One read of ``PostgresStore/readersSQL``: index, room id, the message's time (epoch MILLISECONDS), limit.
private struct ReadersRead: Encodable {
    var i: Int
    var room: String
    var at: Int64
    var lim: Int
}

/// A claimed delivery ended instead of sent, as the claim's settling statement takes it (JSON).
private struct EndedDelivery: Encodable {
    var id: Int64
    var status: String
    var reason: String
}

extension PostgresStore {
    /// The first key of the per-app claim locks (`pg_advisory_xact_lock(int, int)`): a constant the relay
    /// uses for nothing else; the second is a hash of the app id.
    private static let claimLockClass = 0x636c_6d73

    /// The two keys of app `app`'s claim lock in this schema (`app` an SQL expression), as
    /// `pg_advisory_xact_lock` takes them.
    static func claimLockKeys(app: String) -> String {
        "\(claimLockClass), hashtext(current_schema() || '/' || \(app))"
    }

    /// Takes the claim lock of app $1 in this schema until the transaction ends, and turns off sequential and
    /// bitmap scans and hash and merge joins (a plan takes one only where nothing else can run) until the
    /// claim's badges (``claimedTotals(appId:userIds:)``) or the transaction's end: the statements a claim runs
    /// until then read ranges of indexes and seek rows by key, so a plan PostgreSQL keeps for ``claimSQL``
    /// stays right as the tables grow.
    static let claimLockSQL = """
        SELECT pg_advisory_xact_lock(\(claimLockKeys(app: "$1"))),
            \(planSettings.map { "set_config('enable_\($0)', 'off', true)" }.joined(separator: ", "))
        """

    /// The plan types a claim's transaction turns off (and ``seekingOnly(_:)``'s): reads of a whole table,
    /// reads of all of an index's matches before their rows (bitmap), and joins that hash or sort a side.
    private static let planSettings = ["seqscan", "bitmapscan", "hashjoin", "mergejoin"]

    /// Runs `body` in a transaction that turns off ``planSettings`` from its start, for statements whose right
    /// plan at any size reads index ranges in their order and seeks rows by key, however small the statistics
    /// make a range look (``finishedNotificationCounts(_:)``, retention): a prepared one among them is planned
    /// only there.
    func seekingOnly<T>(_ body: () throws -> T) throws -> T {
        try db.transaction(begin: Self.seekingOnlyBegin, body)
    }

    /// Begins a ``seekingOnly(_:)`` transaction.
    private static let seekingOnlyBegin =
        "BEGIN; " + planSettings.map { "SET LOCAL enable_\($0) TO off" }.joined(separator: "; ")

    /// Gives ``planSettings`` back their session's values for the rest of the transaction.
    private static let planSettingsEndSQL = planSettings.map { "SET LOCAL enable_\($0) TO DEFAULT" }.joined(
        separator: "; "
    )

    /// The unread totals of a claim's recipients, for their badges
    /// (``RelayStore/UnreadPolicy/badged(_:userIds:appId:totals:)``), planned as outside a claim:
    /// ``claimLockSQL``'s settings end first, since recounting users without a cached total joins two sets
    /// (the users and their counted totals), which wants a hash join.
    func claimedTotals(appId: String, userIds: [String]) throws -> [String: Int] {
        try db.execute(Self.planSettingsEndSQL)
        return try unreadTotals(appId: appId, userIds: userIds)
    }
}
