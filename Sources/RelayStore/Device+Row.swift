import Foundation
import RelayCore

extension Device {
    /// The columns ``init(row:)`` reads, in its order, of a `devices` row (either engine's SQL; the JSON
    /// array of unlinked topics read as text).
    package static let columns = """
        app_id, token, user_id, environment, state, created_at, updated_at, retired_at, retired_reason,
        apns_timestamp, CAST(unlinked_topics AS text), platform, address
        """

    /// The number of columns ``columns`` names: a statement's own columns follow them.
    package static let columnCount = 13

    /// A device from a row that starts with ``columns``.
    /// - Throws: ``StoreError`` `.invalidData` for a token (with its environment), state or topic list that is
    ///   none.
    package init(row: some StoredRow) throws {
        let token = try row.token(1, platform: 11, address: 12, scope: 3)
        guard let state = DeviceState(rawValue: row.string(4)) else {
            throw StoreError(code: .invalidData, message: "device …\(token.suffix) has an unknown state")
        }
        let topics: [String]
        do {
            topics = try JSONDecoder().decode([String].self, from: Data(row.string(10).utf8))
        } catch {
            throw StoreError(code: .invalidData, message: "device …\(token.suffix) has invalid unlinked_topics")
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
            invalidSince: try row.optionalDate(9),
            unlinkedTopics: topics
        )
    }
}
