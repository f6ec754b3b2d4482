import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// ``RelayStore/BadgeUpdateSQL`` in PostgreSQL's spelling.
    static let badgeUpdateSQL = BadgeUpdateSQL(
        parameter: { "$\($0)" },
        idsOfList: { "SELECT jsonb_array_elements_text(\($0)::jsonb)::bigint" }
    )

    /// Rows with nothing pending deleted at most per ``completeBadgeUpdates(_:at:)``.
    static let badgeUpdatePruneBatch = 100

    /// The badge update rule over this store's statements, inside the caller's transaction, due from `now`.
    func badgeUpdateRule(now: Date) -> BadgeUpdateRule {
        BadgeUpdateRule(
            policy: unreadPolicy,
            hasDevices: { appId, userId in try self.db.query(Self.badgeUpdateSQL.hasDevicesSQL, appId, userId).count > 0
            },
            total: { appId, userId in try self.unreadTotals(appId: appId, userIds: [userId])[userId] ?? 0 },
            refresh: { appId, userId in try self.refreshUnreadTotals(appId: appId, userIds: [userId]) },
            enqueue: { appId, userId, window in
                try self.db.query(Self.badgeUpdateSQL.enqueueSQL, appId, userId, now, window)
            },
            enqueueCounting: { appId, roomId, key, window in
                // A close (no key) removes membership rows; a deleted message counts at the app's positions.
                let users = UnreadSQL.countingUsersSQL(
                    fromDitto: key != nil && self.unreadPolicy.dittoAppIds.contains(appId),
                    app: "$1",
                    room: "$2",
                    key: key.map { _ in "$5" },
                    condition: key == nil ? "p.origin = 'user'" : "TRUE"
                )
                let parameters: [(any PostgresParameter)?] = [appId, roomId, now, window] + (key.map { [$0] } ?? [])
                try self.db.query(Self.badgeUpdateSQL.enqueueSQL(users: "IN (\(users))"), parameters)
            }
        )
    }

    public func appsWithDueBadgeUpdates(now: Date) async throws -> [String] {
        let rows = try db.query(Self.badgeUpdateSQL.dueAppsSQL, now)
        return rows.all.map { $0.string(0) }
    }

    /// Locks up to $3 of app $1's updates due at $2 that hold no live lease, oldest due first (`SKIP LOCKED`
    /// passes over rows another claim holds), leases them to $5 until $4 with the version they carry, and
    /// reads them with their device (NULL columns: deleted). Times epoch MILLISECONDS.
    static let claimBadgeUpdatesSQL = """
        WITH due AS (
            SELECT id FROM badge_updates
            WHERE app_id = $1 AND due_at <= $2 AND (lease_until IS NULL OR lease_until < $2)
            ORDER BY due_at, id
            LIMIT $3
            FOR UPDATE SKIP LOCKED
        ),
        leased AS (
            UPDATE badge_updates AS b SET lease_until = $4, lease_owner = $5, claimed_version = b.version
            FROM due WHERE b.id = due.id
            RETURNING b.id, b.app_id, b.token, b.user_id, b.attempts, b.due_at
        )
        SELECT \(BadgeUpdateJob.columns(update: "l", device: "d"))
        FROM leased AS l
        LEFT JOIN devices AS d ON d.app_id = l.app_id AND d.token = l.token
        ORDER BY l.due_at, l.id
        """

    public func claimDueBadgeUpdates(
        appId: String,
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        owner: String
    ) async throws
        -> [BadgeUpdateJob]
    {
        guard limit > 0 else { return [] }
        let leaseUntil = now.addingTimeInterval(TimeInterval(leaseSeconds))
        return try db.transaction {
            let rows = try db.query(Self.claimBadgeUpdatesSQL, appId, now, limit, leaseUntil, owner)
            var jobs: [(job: BadgeUpdateJob, userId: String)] = []
            var ended: [Int64] = []
            for row in rows.all {
                switch try BadgeUpdateJob.claimed(row: row, appId: appId) {
                case .job(let job, let userId): jobs.append((job, userId))
                case .ended(let id): ended.append(id)
                }
            }
            if !ended.isEmpty {
                try db.query(
                    "DELETE FROM badge_updates WHERE id IN (\(Self.badgeUpdateSQL.idsOfList("$1")))",
                    try StoredValues.jsonList(ended)
                )
            }
            let totals = jobs.isEmpty ? [:] : try unreadTotals(appId: appId, userIds: Array(Set(jobs.map(\.userId))))
            return jobs.map { job, userId in
                var job = job
                job.badge = totals[userId] ?? 0
                return job
            }
        }
    }

    public func completeBadgeUpdates(_ results: [(updateId: Int64, outcome: DeliveryOutcome)], at: Date) async throws {
        guard !results.isEmpty else { return }
        let sql = Self.badgeUpdateSQL
        try db.transaction {
            for (id, outcome) in results {
                switch outcome {
                case .sent:
                    try db.query(sql.sentSQL, id, at)
                case .retry(let retryAt, _, _), .deferred(let retryAt, _, _):
                    try db.query(sql.retrySQL, id, retryAt)
                case .failed:
                    try db.query(sql.dropSQL, id)
                case .unlink(let sendAs, _, _):
                    let rows = try db.query(sql.dropSQL, id)
                    guard rows.count > 0 else { continue }
                    try unlink(sendAs, appId: rows[0].string(0), token: rows[0].string(1))
                case .retired(_, let reason, let invalidSince):
                    let rows = try db.query(sql.deleteSQL, id)
                    guard rows.count > 0 else { continue }
                    try retireDevice(
                        appId: rows[0].string(0),
                        token: rows[0].string(1),
                        reason: reason,
                        invalidSince: invalidSince,
                        at: at
                    )
                }
            }
            try db.query(
                sql.pruneSQL,
                at.addingTimeInterval(-TimeInterval(Configuration.App.badgeUpdateRange.upperBound)),
                Self.badgeUpdatePruneBatch
            )
        }
    }

    public func releaseBadgeUpdateClaims(_ updateIds: [Int64], owner: String) async throws {
        guard !updateIds.isEmpty else { return }
        try db.query(Self.badgeUpdateSQL.releaseSQL, try StoredValues.jsonList(updateIds), owner)
    }
}
