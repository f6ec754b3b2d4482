import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// Renewal holds a transaction-scoped advisory lock of the (team, key) pair, taken before the row is
    /// read: relays renewing at once queue on it, and each after the first finds the new token.
    public func sharedProviderToken(
        teamId: String,
        keyId: String,
        replacing: String?,
        freshAfter: Date,
        signedByCaller: @Sendable (String) -> Bool,
        mint: @Sendable () throws -> IssuedProviderToken
    ) async throws -> IssuedProviderToken {
        try db.transaction {
            try db.query(
                "SELECT pg_advisory_xact_lock($1, hashtext($2 || ' ' || $3))",
                Self.providerTokenLockClass,
                teamId,
                keyId
            )
            let found = try db.query(
                "SELECT \(IssuedProviderToken.columns) FROM provider_tokens WHERE team_id = $1 AND key_id = $2",
                teamId,
                keyId
            )
            if found.count > 0 {
                let stored = try IssuedProviderToken(row: found[0])
                if ProviderTokenRule.usable(
                    stored,
                    replacing: replacing,
                    freshAfter: freshAfter,
                    signedByCaller: signedByCaller
                ) {
                    return stored
                }
            }
            let minted = try mint()
            try db.query(
                """
                INSERT INTO provider_tokens (team_id, key_id, token, issued_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (team_id, key_id) DO UPDATE SET token = excluded.token, issued_at = excluded.issued_at
                """,
                teamId,
                keyId,
                minted.token,
                minted.issuedAt
            )
            return minted
        }
    }

    /// The first key of the provider token locks (`pg_advisory_xact_lock(int, int)`): a constant the relay
    /// alone uses; the second is a hash of the team and key ids.
    static let providerTokenLockClass = 0x7072_746b
}
