import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    public func pendingDittoRequeries() async throws -> [String: UInt64] {
        try db.withStatement("SELECT app_id, txn_id FROM ditto_requeries WHERE txn_id > completed_txn_id") { row in
            var pending: [String: UInt64] = [:]
            while try row.step() { pending[row.string(0)] = UInt64(clamping: row.int64(1)) }
            return pending
        }
    }

    public func claimDittoRequery(appId: String, owner: String, now: Date, leaseSeconds: Int) async throws -> UInt64? {
        try db.withStatement(
            """
            UPDATE ditto_requeries SET lease_owner = ?2, lease_until = ?3
            WHERE app_id = ?1 AND txn_id > completed_txn_id
                AND (lease_owner IS NULL OR lease_owner = ?2 OR lease_until < ?4)
            RETURNING txn_id
            """
        ) { row in
            try row.bind(1, appId)
            try row.bind(2, owner)
            try row.bind(3, now.addingTimeInterval(TimeInterval(leaseSeconds)))
            try row.bind(4, now)
            guard try row.step() else { return nil }
            let txnId = UInt64(clamping: row.int64(0))
            while try row.step() {}
            return txnId
        }
    }

    public func sweepDittoCollection(
        _ collection: String,
        below txnId: UInt64,
        appId: String,
        settings: DittoApplySettings
    ) async throws -> Int {
        try db.transaction {
            // A sweep makes no notification.
            let rows = SQLiteDittoRows(
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
            try db.withStatement(
                """
                UPDATE ditto_requeries SET completed_txn_id = max(completed_txn_id, coalesce(?2, txn_id)),
                    lease_owner = NULL, lease_until = NULL
                WHERE app_id = ?1 AND (?3 IS NULL OR lease_owner = ?3)
                """
            ) {
                try $0.bind(1, appId)
                try $0.bind(2, txnId.map { Int64(clamping: $0) })
                try $0.bind(3, owner)
                try $0.run()
            }
            return try db.withStatement(
                "SELECT txn_id FROM ditto_requeries WHERE app_id = ?1 AND txn_id > completed_txn_id"
            ) {
                try $0.bind(1, appId)
                return try $0.step() ? UInt64(clamping: $0.int64(0)) : nil
            }
        }
    }
}
