import Foundation
import RelayStore

extension SQLiteStore {
    /// Refilled buckets and past minutes' counts deleted by each write: more than one, so the tables shrink
    /// back to the users of the last minutes even when writes slow down.
    static let expiredRateRowsPerWebhook = 100

    public func takeUserRate(_ request: UserRateRequest, at now: Date) async throws -> UserRateRefusal? {
        let minute = UserRateLimit.minute(now)
        return try db.transaction {
            try pruneRateRows(request, minute: minute, now: now)
            let stored = try request.buckets.map { rule in
                try db.withStatement(
                    "SELECT \(UserRateLimit.Bucket.columns) FROM rate_buckets WHERE app_id = ?1 AND user_id = ?2 AND bucket = ?3"
                ) { row -> UserRateLimit.Bucket? in
                    try row.bind(1, request.appId)
                    try row.bind(2, request.senderId)
                    try row.bind(3, rule.name.rawValue)
                    guard try row.step() else { return nil }
                    return try UserRateLimit.Bucket(row: row)
                }
            }
            let recipients = try StoredValues.jsonList(request.recipients)
            let pushes =
                request.recipients.isEmpty ? [] : try pushCounts(request, recipients: recipients, minute: minute)
            let (buckets, refusal) = UserRateLimit.decide(request, stored: stored, pushes: pushes, now: now)
            guard refusal == nil else { return refusal }
            for (rule, bucket) in zip(request.buckets, buckets) {
                try db.withStatement(
                    """
                    INSERT OR REPLACE INTO rate_buckets (app_id, user_id, bucket, micro_tokens, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5)
                    """
                ) {
                    try $0.bind(1, request.appId)
                    try $0.bind(2, request.senderId)
                    try $0.bind(3, rule.name.rawValue)
                    try $0.bind(4, bucket.microTokens)
                    try $0.bind(5, bucket.updatedAt)
                    try $0.run()
                }
            }
            if !request.recipients.isEmpty { try countPushes(request, recipients: recipients, minute: minute) }
            return nil
        }
    }

    /// This minute's pushes from the request's sender to each of its recipients (`recipients`, their JSON
    /// list), in the request's order; one statement.
    private func pushCounts(_ request: UserRateRequest, recipients: String, minute: Int64) throws -> [Int] {
        // By bytes, as the database compares them.
        var counts: [[UInt8]: Int] = [:]
        try db.withStatement(
            """
            SELECT recipient_id, pushes FROM rate_pushes
            WHERE app_id = ?1 AND sender_id = ?2 AND minute = ?3 AND recipient_id IN (SELECT value FROM json_each(?4))
            """
        ) {
            try $0.bind(1, request.appId)
            try $0.bind(2, request.senderId)
            try $0.bind(3, minute)
            try $0.bind(4, recipients)
            while try $0.step() { counts[Array($0.string(0).utf8)] = $0.int(1) }
        }
        return request.recipients.map { counts[Array($0.utf8)] ?? 0 }
    }

    /// Counts one push from the request's sender to each of `recipients` (their JSON list; one named twice
    /// counts twice) in `minute`, a count of an earlier minute starting again; one statement.
    private func countPushes(_ request: UserRateRequest, recipients: String, minute: Int64) throws {
        try db.withStatement(
            """
            INSERT INTO rate_pushes (app_id, sender_id, recipient_id, minute, pushes)
            SELECT ?1, ?2, value, ?3, count(*) FROM json_each(?4) GROUP BY value
            ON CONFLICT (app_id, sender_id, recipient_id) DO UPDATE SET
                pushes = CASE WHEN minute = excluded.minute THEN pushes + excluded.pushes ELSE excluded.pushes END,
                minute = excluded.minute
            """
        ) {
            try $0.bind(1, request.appId)
            try $0.bind(2, request.senderId)
            try $0.bind(3, minute)
            try $0.bind(4, recipients)
            try $0.run()
        }
    }

    /// Deletes up to ``expiredRateRowsPerWebhook`` of the request's app's buckets of each of its names idle
    /// long enough to be full, and as many counts of minutes before `minute` (of any app).
    private func pruneRateRows(_ request: UserRateRequest, minute: Int64, now: Date) throws {
        for rule in request.buckets {
            try db.withStatement(
                """
                DELETE FROM rate_buckets WHERE (app_id, user_id, bucket) IN (
                    SELECT app_id, user_id, bucket FROM rate_buckets
                    WHERE app_id = ?1 AND bucket = ?4 AND updated_at < ?2 LIMIT ?3
                )
                """
            ) {
                try $0.bind(1, request.appId)
                try $0.bind(2, EpochMilliseconds.of(now) - UserRateLimit.refillMilliseconds(rule))
                try $0.bind(3, Self.expiredRateRowsPerWebhook)
                try $0.bind(4, rule.name.rawValue)
                try $0.run()
            }
        }
        try db.withStatement(
            """
            DELETE FROM rate_pushes WHERE (app_id, sender_id, recipient_id) IN (
                SELECT app_id, sender_id, recipient_id FROM rate_pushes WHERE minute < ?1 LIMIT ?2
            )
            """
        ) {
            try $0.bind(1, minute)
            try $0.bind(2, Self.expiredRateRowsPerWebhook)
            try $0.run()
        }
    }
}
