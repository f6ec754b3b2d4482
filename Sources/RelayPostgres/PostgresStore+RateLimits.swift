import Foundation
import RelayStore

extension PostgresStore {
    /// Refilled buckets and past minutes' counts deleted by each webhook (see the SQLite store's).
    static let expiredRateRowsPerWebhook = 100

    /// The user's bucket rows are taken with `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` (a new user's
    /// full), in the request's order, which locks them to the end of the transaction: a relay deciding a write
    /// of the same user waits, then reads the buckets and counts this one left.
    public func takeUserRate(_ request: UserRateRequest, at now: Date) async throws -> UserRateRefusal? {
        let minute = UserRateLimit.minute(now)
        let recipients = try StoredValues.jsonList(request.recipients)
        // Pruned first, each delete its own transaction: rows of other users' counts held while this take
        // waits on its user's buckets would let a take of the same user that holds them wait on those rows
        // in turn (a deadlock).
        try pruneRateRows(request, minute: minute, now: now)
        return try db.transaction {
            let stored = try request.buckets.map { rule -> UserRateLimit.Bucket? in
                let row = try db.query(
                    """
                    INSERT INTO rate_buckets (app_id, user_id, bucket, micro_tokens, updated_at)
                    VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (app_id, user_id, bucket) DO UPDATE SET updated_at = rate_buckets.updated_at
                    RETURNING \(UserRateLimit.Bucket.columns)
                    """,
                    request.appId,
                    request.senderId,
                    rule.name.rawValue,
                    Int64(rule.burst) * UserRateLimit.scale,
                    now
                )
                return try UserRateLimit.Bucket(row: row[0])
            }
            var pushes: [Int] = []
            if !request.recipients.isEmpty {
                let found = try db.query(
                    Self.pushCountsSQL,
                    request.appId,
                    request.senderId,
                    minute,
                    recipients
                )
                // By bytes, as the database compared them.
                var counts: [[UInt8]: Int] = [:]
                for row in found.all { counts[Array(row.string(0).utf8)] = try row.int(1) }
                pushes = request.recipients.map { counts[Array($0.utf8)] ?? 0 }
            }
            let (buckets, refusal) = UserRateLimit.decide(request, stored: stored, pushes: pushes, now: now)
            guard refusal == nil else { return refusal }
            for (rule, bucket) in zip(request.buckets, buckets) {
                try db.query(
                    """
                    UPDATE rate_buckets SET micro_tokens = $4, updated_at = $5
                    WHERE app_id = $1 AND user_id = $2 AND bucket = $3
                    """,
                    request.appId,
                    request.senderId,
                    rule.name.rawValue,
                    bucket.microTokens,
                    bucket.updatedAt
                )
            }
            guard !request.recipients.isEmpty else { return nil }
            try db.query(
                """
                INSERT INTO rate_pushes (app_id, sender_id, recipient_id, minute, pushes)
                SELECT $1, $2, r, $3, count(*) FROM jsonb_array_elements_text($4::jsonb) AS r GROUP BY r
                ON CONFLICT (app_id, sender_id, recipient_id) DO UPDATE SET
                    pushes = CASE WHEN rate_pushes.minute = excluded.minute
                        THEN rate_pushes.pushes + excluded.pushes ELSE excluded.pushes END,
                    minute = excluded.minute
                """,
                request.appId,
                request.senderId,
                minute,
                recipients
            )
            return nil
        }
    }

    /// This minute's pushes from a sender to each recipient it has pushed to in it: $1 app, $2 sender, $3
    /// minute, $4 the recipients (a JSON array). Each recipient's count is a lateral subquery fenced by
    /// `OFFSET 0`, so it is one seek of the primary key whatever the statistics. A join leaves the choice to
    /// the planner, which on a table analyzed while small reads all the sender's counts for each recipient,
    /// and a webhook to a big room outlasts the statement timeout.
    static let pushCountsSQL = """
        SELECT r.recipient_id, p.pushes FROM jsonb_array_elements_text($4::jsonb) AS r (recipient_id)
        CROSS JOIN LATERAL (
            SELECT pushes FROM rate_pushes
            WHERE app_id = $1 AND sender_id = $2 AND recipient_id = r.recipient_id AND minute = $3
            OFFSET 0
        ) AS p
        """

    /// Deletes up to ``expiredRateRowsPerWebhook`` of the request's app's buckets of each of its names idle
    /// long enough to be full, and as many counts of minutes before `minute` (of any app); rows another
    /// transaction holds are skipped.
    private func pruneRateRows(_ request: UserRateRequest, minute: Int64, now: Date) throws {
        for rule in request.buckets {
            try db.query(
                """
                DELETE FROM rate_buckets WHERE ctid IN (
                    SELECT ctid FROM rate_buckets WHERE app_id = $1 AND bucket = $4 AND updated_at < $2
                    LIMIT $3 FOR UPDATE SKIP LOCKED
                )
                """,
                request.appId,
                EpochMilliseconds.of(now) - UserRateLimit.refillMilliseconds(rule),
                Self.expiredRateRowsPerWebhook,
                rule.name.rawValue
            )
        }
        try db.query(
            """
            DELETE FROM rate_pushes WHERE ctid IN (
                SELECT ctid FROM rate_pushes WHERE minute < $1 LIMIT $2 FOR UPDATE SKIP LOCKED
            )
            """,
            minute,
            Self.expiredRateRowsPerWebhook
        )
    }
}
