import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    public func setFeedbackPolicy(_ policy: FeedbackPolicy) async {
        feedbackPolicy = policy
    }

    /// Queues the feedback of a device just retired, copied from its row, when its app is in the
    /// ``FeedbackPolicy``; called inside the retiring transaction.
    func enqueueFeedback(appId: String, token: String, at: Date) throws {
        guard feedbackPolicy.appIds.contains(appId) else { return }
        try db.withStatement(
            """
            INSERT INTO feedback (app_id, token, platform, address, user_id, environment, reason, apns_timestamp,
                retired_at, next_attempt_at, expires_at)
            SELECT app_id, token, platform, address, user_id, environment, coalesce(retired_reason, ''),
                apns_timestamp, ?3, ?3, ?4
            FROM devices WHERE app_id = ?1 AND token = ?2
            """
        ) {
            try $0.bind(1, appId)
            try $0.bind(2, token)
            try $0.bind(3, at)
            try $0.bind(4, at.addingTimeInterval(TimeInterval(feedbackPolicy.lifetimeSeconds)))
            try $0.run()
        }
    }

    public func claimDueFeedback(
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        owner: String
    ) async throws
        -> [FeedbackJob]
    {
        guard limit > 0 else { return [] }
        let leaseUntil = now.addingTimeInterval(TimeInterval(leaseSeconds))
        return try db.transaction {
            let jobs = try db.withStatement(
                """
                SELECT \(FeedbackJob.columns()) FROM feedback
                WHERE next_attempt_at <= ?1 AND (lease_until IS NULL OR lease_until < ?1)
                    AND app_id IN (SELECT value FROM json_each(?3))
                ORDER BY next_attempt_at, id
                LIMIT ?2
                """
            ) { row in
                try row.bind(1, now)
                try row.bind(2, limit)
                try row.bind(3, try StoredValues.jsonList(feedbackPolicy.appIds.sorted()))
                var jobs: [FeedbackJob] = []
                while try row.step() { jobs.append(try FeedbackJob(row: row)) }
                return jobs
            }
            for job in jobs {
                try db.withStatement("UPDATE feedback SET lease_until = ?2, lease_owner = ?3 WHERE id = ?1") {
                    try $0.bind(1, job.feedbackId)
                    try $0.bind(2, leaseUntil)
                    try $0.bind(3, owner)
                    try $0.run()
                }
            }
            return jobs
        }
    }

    public func completeFeedback(_ results: [(feedbackId: Int64, outcome: FeedbackOutcome)], at: Date) async throws {
        guard !results.isEmpty else { return }
        try db.transaction {
            for (id, outcome) in results {
                switch outcome {
                case .delivered, .dropped:
                    try db.withStatement("DELETE FROM feedback WHERE id = ?1") {
                        try $0.bind(1, id)
                        try $0.run()
                    }
                case .retry(let retryAt, let status, let error):
                    try db.withStatement(
                        """
                        UPDATE feedback SET attempts = attempts + 1, next_attempt_at = ?2, lease_until = NULL,
                            lease_owner = NULL, last_status = ?3, last_error = ?4
                        WHERE id = ?1
                        """
                    ) {
                        try $0.bind(1, id)
                        try $0.bind(2, retryAt)
                        try $0.bind(3, status)
                        try $0.bind(4, error)
                        try $0.run()
                    }
                }
            }
        }
    }

    public func pendingFeedbackCount() async throws -> Int {
        Int(try db.scalar("SELECT count(*) FROM feedback"))
    }

    public func deadTokens(appId: String, since: Date, limit: Int) async throws -> [Device] {
        guard limit > 0 else { return [] }
        return try db.withStatement(
            """
            SELECT \(Device.columns) FROM devices
            WHERE app_id = ?1 AND state = 'retired' AND retired_at >= ?2
            ORDER BY retired_at, token
            LIMIT ?3
            """
        ) { statement in
            try statement.bind(1, appId)
            try statement.bind(2, since)
            try statement.bind(3, limit)
            var devices: [Device] = []
            while try statement.step() { devices.append(try Device(row: statement)) }
            return devices
        }
    }
}
