import Foundation
import RelayCore

extension Device {
    /// The columns ``init(row:)`` reads, in its order, of a `devices` row (either engine's SQL; the JSON
    /// array of the token's unlinked identities read as text).
    package static let columns = """
        app_id, token, user_id, environment, state, created_at, updated_at, retired_at, retired_reason,
        apns_timestamp, CAST(unlinked_topics AS text), platform, address
        """

    /// The number of columns ``columns`` names: a statement's own columns follow them.
    package static let columnCount = 13

    /// A device from a row that starts with ``columns``.
    /// - Throws: ``StoreError`` `.invalidData` for a token (with its scope and unlinked identities) or state
    ///   that is none.
    package init(row: some StoredRow) throws {
        let token = try row.token(1, platform: 11, address: 12, scope: 3, unlinked: 10)
        guard let state = DeviceState(rawValue: row.string(4)) else {
            throw StoreError(code: .invalidData, message: "device …\(token.suffix) has an unknown state")
        }
        self.init(
            appId: row.string(0),
            token: token,
            userId: row.string(2),
            state: state,
            createdAt: try row.date(5),
            updatedAt: try row.date(6),
            retiredAt: try row.optionalDate(7),
            retiredReason: row.optionalString(8),
            invalidSince: try row.optionalDate(9)
        )
    }
}
