import Foundation
import RelayStore

extension PostgresStore {
    /// Forgotten keys (older than ``RelayStore/IdempotencyKey/retention``) deleted by each keyed notification
    /// recorded: more than one, so the table shrinks back to the keys of the last day even when keyed calls
    /// slow down.
    static let forgottenKeysPerInsert = 100

    /// Inside ``createNotification(_:recipients:idempotencyKey:)``'s transaction, for one of a key's
    /// identities (``RelayStore/IdempotencyKey/firstAnswer(_:)`` tries each): the answer an earlier call with
    /// `key` gives at `now` (`.duplicate` for the same fingerprint, `.keyReused` for another), or nil when the
    /// key is not remembered; a forgotten row of the key is deleted here, so the key can be used again.
    func rememberedAnswer(for key: IdempotencyKey, appId: String, at now: Date) throws -> CreateOutcome? {
        let found = try db.query(
            """
            SELECT request_hash = $4::bytea, created_at > $5::bigint, notification_id FROM idempotency_keys
            WHERE app_id = $1 AND scope = $2 AND key = $3
            """,
            appId,
            key.scope,
            key.key,
            key.requestHash,
            Self.forgottenUpTo(now)
        )
        guard found.count > 0 else { return nil }
        guard try found[0].bool(1) else {
            try db.query(
                "DELETE FROM idempotency_keys WHERE app_id = $1 AND scope = $2 AND key = $3",
                appId,
                key.scope,
                key.key
            )
            return nil
        }
        let notificationId = try found[0].uuid(2)
        guard try found[0].bool(0) else { return .keyReused(notificationId: notificationId) }
        return .duplicate(notificationId: notificationId, devices: try deliveryCount(of: notificationId))
    }

    /// Inside ``createNotification(_:recipients:idempotencyKey:)``'s transaction: writes a row for each of
    /// `key`'s identities for notification `notificationId` made at `now`, and deletes up to
    /// ``forgottenKeysPerInsert`` forgotten keys of any app, oldest first. Returns false when a concurrent
    /// call committed one of them first (the insert waits for that transaction to end on the primary key).
    func remember(_ key: IdempotencyKey, appId: String, notificationId: UUID, at now: Date) throws -> Bool {
        try db.query(
            """
            DELETE FROM idempotency_keys WHERE ctid IN (
                SELECT ctid FROM idempotency_keys WHERE created_at <= $1 ORDER BY created_at LIMIT $2
                FOR UPDATE SKIP LOCKED
            )
            """,
            Self.forgottenUpTo(now),
            Self.forgottenKeysPerInsert
        )
        for identity in key.identities {
            let inserted = try db.query(
                """
                INSERT INTO idempotency_keys (app_id, scope, key, request_hash, notification_id, created_at)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (app_id, scope, key) DO NOTHING
                """,
                appId,
                identity.scope,
                identity.key,
                identity.requestHash,
                notificationId,
                now
            )
            guard inserted.changed == 1 else { return false }
        }
        return true
    }

    /// The latest `created_at` (epoch MILLISECONDS, as stored) of a key forgotten at `now`: both sides in
    /// whole milliseconds, so a key is forgotten exactly ``RelayStore/IdempotencyKey/retention`` after it was
    /// stored.
    private static func forgottenUpTo(_ now: Date) -> Int64 {
        EpochMilliseconds.of(now) - Int64(IdempotencyKey.retention / .milliseconds(1))
    }
}
