import Foundation
import RelayCore

extension FeedbackJob {
    /// The columns ``init(row:)`` reads, in its order, of a `feedback` row, each prefixed with `alias.`
    /// when one is given.
    package static func columns(of alias: String? = nil) -> String {
        StoredColumns.list(
            [
                "id", "app_id", "token", "user_id", "environment", "reason", "apns_timestamp", "retired_at",
                "attempts", "expires_at", "platform", "address",
            ],
            of: alias
        )
    }

    /// A job from a row that starts with ``columns(of:)``.
    /// - Throws: ``StoreError`` `.invalidData` for a token (with its environment) that is none.
    package init(row: some StoredRow) throws {
        self.init(
            feedbackId: try row.int64(0),
            appId: row.string(1),
            token: try row.token(2, platform: 10, address: 11, scope: 4),
            userId: row.string(3),
            reason: row.string(5),
            invalidSince: try row.optionalDate(6),
            retiredAt: try row.date(7),
            attempts: try row.int(8),
            expiresAt: try row.date(9)
        )
    }
}
