import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    public func pendingDittoRequeries() async throws -> [String: UInt64] {
        let rows = try db.query("SELECT app_id, txn_id FROM ditto_requeries WHERE txn_id > completed_txn_id")
        var pending: [String: UInt64] = [:]
        for row in rows.all { pending[row.string(0)] = UInt64(clamping: try row.int64(1)) }
        return pending
    }

    public func claimDittoRequery(appId: String, owner: String, now: Date, leaseSeconds: Int) async throws -> UInt64? {
        let rows = try db.query(
            """
            UPDATE ditto_requeries SET lease_owner = $2, lease_until = $3
            WHERE app_id = $1 AND txn_id > completed_txn_id
                AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < $4)
            RETURNING txn_id
            """,
            appId,
            owner,
            now.addingTimeInterval(TimeInterval(leaseSeconds)),
            now
        )
        return try rows.count > 0 ? UInt64(clamping: rows[0].int64(0)) : nil
    }

    public func sweepDittoCollection(
        _ collection: String,
        below txnId: UInt64,
        appId: String,
        settings: DittoApplySettings
    ) async throws -> Int {
        try db.transaction {
            // A sweep makes no notification.
            let rows = PostgresDittoRows(
                db: db,
                policy: unreadPolicy,
                badgeUpdates: .none,
                record: { _, _ in false },
                delete: { _, _, _, _, _ in false }
            )
            return try DittoApplier(rows: rows, appId: appId, settings: settings, at: Date()).sweep(
                collection,
                below: txnId
            )
        }
    }

    public func completeDittoRequery(appId: String, txnId: UInt64?, owner: String?) async throws -> UInt64? {
        try db.transaction {
            try db.query(
                """
                UPDATE ditto_requeries
                SET completed_txn_id = GREATEST(completed_txn_id, coalesce($2::bigint, txn_id)),
                    lease_owner = NULL, lease_until = NULL
                WHERE app_id = $1 AND ($3::text IS NULL OR lease_owner = $3::text)
                """,
                appId,
                txnId.map { Int64(clamping: $0) },
                owner
            )
            let pending = try db.query(
                "SELECT txn_id FROM ditto_requeries WHERE app_id = $1 AND txn_id > completed_txn_id",
                appId
            )
            return try pending.count > 0 ? UInt64(clamping: pending[0].int64(0)) : nil
        }
    }
}
