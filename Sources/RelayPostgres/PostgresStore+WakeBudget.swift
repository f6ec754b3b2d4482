import Foundation
import RelayStore

extension PostgresStore {
    /// One transaction: the asked devices' rows are upserted in token order, a past hour's count starting
    /// again at 0, which locks them to its end (a relay counting the same devices waits, then reads the
    /// counts this one left; the fixed order keeps two such relays from deadlocking), and read back; then
    /// their new counts are written in one statement. Rows of past hours that another transaction holds are
    /// not pruned.
    public func takeWakePushes(
        appId: String,
        tokens: [String],
        perHour budget: Int,
        at now: Date
    ) async throws
        -> [Bool]
    {
        guard !tokens.isEmpty, budget > 0 else { return tokens.map { _ in false } }
        let hour = WakeBudget.hour(now)
        let asked = WakeBudget.asked(tokens)
        return try db.transaction {
            try db.query(
                """
                DELETE FROM wake_budgets WHERE ctid IN (
                    SELECT ctid FROM wake_budgets WHERE hour < $1 LIMIT $2 FOR UPDATE SKIP LOCKED
                )
                """,
                hour,
                WakeBudget.expiredRowsPerCall
            )
            let rows = try db.query(
                """
                INSERT INTO wake_budgets (app_id, token, hour, used)
                SELECT $1, e.key, $2, 0 FROM jsonb_each_text($3::jsonb) AS e ORDER BY e.key
                ON CONFLICT (app_id, token) DO UPDATE SET
                    used = CASE WHEN wake_budgets.hour = excluded.hour THEN wake_budgets.used ELSE 0 END,
                    hour = excluded.hour
                RETURNING token, used
                """,
                appId,
                hour,
                try WakeBudget.jsonObject(asked)
            )
            var used: [String: Int] = [:]
            for row in rows.all { used[row.string(0)] = try row.int(1) }
            let counts = WakeBudget.counts(asked: asked, used: used, budget: budget)
            try db.query(
                """
                UPDATE wake_budgets AS w SET used = e.value::integer
                FROM jsonb_each_text($2::jsonb) AS e WHERE w.app_id = $1 AND w.token = e.key
                """,
                appId,
                try WakeBudget.jsonObject(counts)
            )
            return WakeBudget.given(tokens, used: used, counts: counts)
        }
    }
}
