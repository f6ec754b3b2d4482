import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    public func setFeedbackPolicy(_ policy: FeedbackPolicy) async {
        feedbackPolicy = policy
    }

    /// Queues the feedback of a device just retired, copied from its row, when its app is in the
    /// ``RelayStore/FeedbackPolicy``; called inside the retiring transaction.
    func enqueueFeedback(appId: String, token: String, at: Date) throws {
        guard feedbackPolicy.appIds.contains(appId) else { return }
        try db.query(
            """
            INSERT INTO feedback (app_id, token, platform, address, user_id, environment, reason, apns_timestamp,
                retired_at, next_attempt_at, expires_at)
            SELECT app_id, token, platform, address, user_id, environment, coalesce(retired_reason, ''),
                apns_timestamp, $3, $3, $4
            FROM devices WHERE app_id = $1 AND token = $2
            """,
            appId,
            token,
            at,
            at.addingTimeInterval(TimeInterval(feedbackPolicy.lifetimeSeconds))
        )
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
        let rows = try db.query(
            """
            WITH due AS (
                SELECT id FROM feedback
                WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
                    AND app_id IN (SELECT jsonb_array_elements_text($5::jsonb))
                ORDER BY next_attempt_at, id
                LIMIT $2
                FOR UPDATE SKIP LOCKED
            ),
            leased AS (
                UPDATE feedback AS f SET lease_until = $3, lease_owner = $4 FROM due WHERE f.id = due.id
                RETURNING \(FeedbackJob.columns(of: "f")), f.next_attempt_at
            )
            SELECT * FROM leased ORDER BY next_attempt_at, id
            """,
            now,
            limit,
            now.addingTimeInterval(TimeInterval(leaseSeconds)),
            owner,
            try StoredValues.jsonList(feedbackPolicy.appIds.sorted())
        )
        return try rows.all.map(FeedbackJob.init(row:))
    }

    public func completeFeedback(_ results: [(feedbackId: Int64, outcome: FeedbackOutcome)], at: Date) async throws {
        guard !results.isEmpty else { return }
        try db.transaction {
            for (id, outcome) in results {
                switch outcome {
                case .delivered, .dropped:
                    try db.query("DELETE FROM feedback WHERE id = $1", id)
                case .retry(let retryAt, let status, let error):
                    try db.query(
                        """
                        UPDATE feedback SET attempts = attempts + 1, next_attempt_at = $2, lease_until = NULL,
                            lease_owner = NULL, last_status = $3, last_error = $4
                        WHERE id = $1
                        """,
                        id,
                        retryAt,
                        status,
                        error
                    )
                }
            }
        }
    }

    public func pendingFeedbackCount() async throws -> Int {
        try db.query("SELECT count(*) FROM feedback")[0].int(0)
    }
}
