import Foundation
import RelayStore

extension SQLiteStore {
    /// One transaction (`BEGIN IMMEDIATE` holds the write lock, so no other relay on the file counts
    /// meanwhile): the asked devices' rows are upserted, a past hour's count starting again at 0, and read
    /// back; then their new counts are written in one statement.
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
            try db.withStatement(
                """
                DELETE FROM wake_budgets WHERE (app_id, token) IN (
                    SELECT app_id, token FROM wake_budgets WHERE hour < ?1 LIMIT ?2
                )
                """
            ) {
                try $0.bind(1, hour)
                try $0.bind(2, WakeBudget.expiredRowsPerCall)
                try $0.run()
            }
            var used: [String: Int] = [:]
            try db.withStatement(
                """
                INSERT INTO wake_budgets (app_id, token, hour, used)
                SELECT ?1, key, ?2, 0 FROM json_each(?3) WHERE true
                ON CONFLICT (app_id, token) DO UPDATE SET
                    used = CASE WHEN hour = excluded.hour THEN used ELSE 0 END, hour = excluded.hour
                RETURNING token, used
                """
            ) {
                try $0.bind(1, appId)
                try $0.bind(2, hour)
                try $0.bind(3, try WakeBudget.jsonObject(asked))
                while try $0.step() { used[$0.string(0)] = $0.int(1) }
            }
            let counts = WakeBudget.counts(asked: asked, used: used, budget: budget)
            try db.withStatement(
                """
                UPDATE wake_budgets SET used = (SELECT value FROM json_each(?2) WHERE key = wake_budgets.token)
                WHERE app_id = ?1 AND token IN (SELECT key FROM json_each(?2))
                """
            ) {
                try $0.bind(1, appId)
                try $0.bind(2, try WakeBudget.jsonObject(counts))
                try $0.run()
            }
            return WakeBudget.given(tokens, used: used, counts: counts)
        }
    }
}
