import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    /// ``BadgeUpdateSQL`` in SQLite's spelling.
    static let badgeUpdateSQL = BadgeUpdateSQL(
        parameter: { "?\($0)" },
        idsOfList: { "SELECT value FROM json_each(\($0))" }
    )

    /// Rows with nothing pending deleted at most per ``completeBadgeUpdates(_:at:)``.
    static let badgeUpdatePruneBatch = 100

    /// The badge update rule over this store's statements, inside the caller's transaction, due from `now`.
    func badgeUpdateRule(now: Date) -> BadgeUpdateRule {
        BadgeUpdateRule(
            policy: unreadPolicy,
            hasDevices: { appId, userId in
                try self.db.withStatement(Self.badgeUpdateSQL.hasDevicesSQL) {
                    try $0.bind(1, appId)
                    try $0.bind(2, userId)
                    return try $0.step()
                }
            },
            total: { appId, userId in try self.unreadTotals(appId: appId, userIds: [userId])[userId] ?? 0 },
            refresh: { appId, userId in try self.refreshUnreadTotals(appId: appId, userIds: [userId]) },
            enqueue: { appId, userId, window in
                try self.db.withStatement(Self.badgeUpdateSQL.enqueueSQL) {
                    try $0.bind(1, appId)
                    try $0.bind(2, userId)
                    try $0.bind(3, now)
                    try $0.bind(4, window)
                    try $0.run()
                }
            },
            enqueueCounting: { appId, roomId, key, window in
                // A close (no key) removes membership rows; a deleted message counts at the app's positions.
                let users = UnreadSQL.countingUsersSQL(
                    fromDitto: key != nil && self.unreadPolicy.dittoAppIds.contains(appId),
                    app: "?1",
                    room: "?2",
                    key: key.map { _ in "?5" },
                    condition: key == nil ? "p.origin = 'user'" : "TRUE"
                )
                try self.db.withStatement(Self.badgeUpdateSQL.enqueueSQL(users: "IN (\(users))")) {
                    try $0.bind(1, appId)
                    try $0.bind(2, roomId)
                    try $0.bind(3, now)
                    try $0.bind(4, window)
                    if let key { try $0.bind(5, key) }
                    try $0.run()
                }
            }
        )
    }

    public func appsWithDueBadgeUpdates(now: Date) async throws -> [String] {
        try db.withStatement(Self.badgeUpdateSQL.dueAppsSQL) { row in
            try row.bind(1, now)
            var apps: [String] = []
            while try row.step() { apps.append(row.string(0)) }
            return apps
        }
    }

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
            var jobs: [(job: BadgeUpdateJob, userId: String)] = []
            var ended: [Int64] = []
            try db.withStatement(Self.dueBadgeUpdatesSQL) { row in
                try row.bind(1, appId)
                try row.bind(2, now)
                try row.bind(3, limit)
                while try row.step() {
                    switch try BadgeUpdateJob.claimed(row: row, appId: appId) {
                    case .job(let job, let userId): jobs.append((job, userId))
                    case .ended(let id): ended.append(id)
                    }
                }
            }
            for id in ended {
                try db.withStatement(Self.badgeUpdateSQL.deleteSQL) {
                    try $0.bind(1, id)
                    try $0.run()
                }
            }
            for (job, _) in jobs {
                try db.withStatement(
                    """
                    UPDATE badge_updates SET lease_owner = ?2, lease_until = ?3, claimed_version = version
                    WHERE id = ?1
                    """
                ) {
                    try $0.bind(1, job.updateId)
                    try $0.bind(2, owner)
                    try $0.bind(3, leaseUntil)
                    try $0.run()
                }
            }
            let totals = jobs.isEmpty ? [:] : try unreadTotals(appId: appId, userIds: Array(Set(jobs.map(\.userId))))
            return jobs.map { job, userId in
                var job = job
                job.badge = totals[userId] ?? 0
                return job
            }
        }
    }

    /// ?1 app id, ?2 now, ?3 limit: the app's due updates holding no live lease, oldest due first, with
    /// their devices (NULL columns: deleted).
    static let dueBadgeUpdatesSQL = """
        SELECT \(BadgeUpdateJob.columns(update: "b", device: "d"))
        FROM badge_updates AS b
        LEFT JOIN devices AS d ON d.app_id = b.app_id AND d.token = b.token
        WHERE b.app_id = ?1 AND b.due_at <= ?2 AND (b.lease_until IS NULL OR b.lease_until < ?2)
        ORDER BY b.due_at, b.id
        LIMIT ?3
        """

    public func completeBadgeUpdates(_ results: [(updateId: Int64, outcome: DeliveryOutcome)], at: Date) async throws {
        guard !results.isEmpty else { return }
        let sql = Self.badgeUpdateSQL
        try db.transaction {
            for (id, outcome) in results {
                switch outcome {
                case .sent:
                    try db.withStatement(sql.sentSQL) {
                        try $0.bind(1, id)
                        try $0.bind(2, at)
                        try $0.run()
                    }
                case .retry(let retryAt, _, _), .deferred(let retryAt, _, _):
                    try db.withStatement(sql.retrySQL) {
                        try $0.bind(1, id)
                        try $0.bind(2, retryAt)
                        try $0.run()
                    }
                case .failed:
                    _ = try badgeUpdateDevice(sql.dropSQL, id: id)
                case .unlink(let sendAs, _, _):
                    guard let device = try badgeUpdateDevice(sql.dropSQL, id: id) else { continue }
                    try unlink(sendAs, device: device)
                case .retired(_, let reason, let invalidSince):
                    guard let device = try badgeUpdateDevice(sql.deleteSQL, id: id) else { continue }
                    try retireDevice(device, reason: reason, invalidSince: invalidSince, at: at)
                }
            }
            try db.withStatement(sql.pruneSQL) {
                try $0.bind(1, at.addingTimeInterval(-TimeInterval(Configuration.App.badgeUpdateRange.upperBound)))
                try $0.bind(2, Self.badgeUpdatePruneBatch)
                try $0.run()
            }
        }
    }

    /// Runs `sql` (``BadgeUpdateSQL/dropSQL`` or ``BadgeUpdateSQL/deleteSQL``) on update `id` and returns
    /// its device; nil for an unknown id.
    private func badgeUpdateDevice(_ sql: String, id: Int64) throws -> (appId: String, token: String)? {
        try db.withStatement(sql) { row in
            try row.bind(1, id)
            guard try row.step() else { return nil }
            let device = (appId: row.string(0), token: row.string(1))
            try row.run()
            return device
        }
    }

    public func releaseBadgeUpdateClaims(_ updateIds: [Int64], owner: String) async throws {
        guard !updateIds.isEmpty else { return }
        try db.transaction {
            try db.withStatement(Self.badgeUpdateSQL.releaseSQL) {
                try $0.bind(1, try StoredValues.jsonList(updateIds))
                try $0.bind(2, owner)
                try $0.run()
            }
        }
    }
}
