import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    /// The file's relay is the only one, so the row is read and replaced in one `BEGIN IMMEDIATE`
    /// transaction (the write lock is the renewal lock).
    public func sharedProviderToken(
        teamId: String,
        keyId: String,
        replacing: String?,
        freshAfter: Date,
        signedByCaller: @Sendable (String) -> Bool,
        mint: @Sendable () throws -> IssuedProviderToken
    ) async throws -> IssuedProviderToken {
        try db.transaction {
            let stored = try db.withStatement(
                "SELECT \(IssuedProviderToken.columns) FROM provider_tokens WHERE team_id = ?1 AND key_id = ?2"
            ) { row -> IssuedProviderToken? in
                try row.bind(1, teamId)
                try row.bind(2, keyId)
                guard try row.step() else { return nil }
                return try IssuedProviderToken(row: row)
            }
            if let stored,
                ProviderTokenRule.usable(
                    stored,
                    replacing: replacing,
                    freshAfter: freshAfter,
                    signedByCaller: signedByCaller
                )
            {
                return stored
            }
            let minted = try mint()
            try db.withStatement(
                "INSERT OR REPLACE INTO provider_tokens (team_id, key_id, token, issued_at) VALUES (?1, ?2, ?3, ?4)"
            ) {
                try $0.bind(1, teamId)
                try $0.bind(2, keyId)
                try $0.bind(3, minted.token)
                try $0.bind(4, minted.issuedAt)
                try $0.run()
            }
            return minted
        }
    }
}
