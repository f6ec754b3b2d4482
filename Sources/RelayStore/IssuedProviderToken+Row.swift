import Foundation
import RelayCore

extension IssuedProviderToken {
    /// The columns ``init(row:)`` reads, in its order, of a `provider_tokens` row.
    package static let columns = "token, issued_at"

    /// A token from a row that starts with ``columns``.
    package init(row: some StoredRow) throws {
        self.init(token: row.string(0), issuedAt: try row.int(1))
    }
}
