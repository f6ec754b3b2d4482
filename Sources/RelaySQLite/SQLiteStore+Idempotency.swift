import Foundation
import RelayStore

extension SQLiteStore {
    /// Forgotten keys (older than ``IdempotencyKey/retention``) deleted by each keyed notification recorded:
    /// more than one, so the table shrinks back to the keys of the last day even when keyed calls slow down.
    static let forgottenKeysPerInsert = 100

    /// Inside ``createNotification(_:recipients:idempotencyKey:)``'s transaction, for one of a key's
    /// identities (``RelayStore/IdempotencyKey/firstAnswer(_:)`` tries each): the answer an earlier call with
    /// `key` gives at `now` (`.duplicate` for the same fingerprint, `.keyReused` for another), or nil when the
    /// key is not remembered; a forgotten row of the key is deleted here, so the key can be used again.
    func rememberedAnswer(for key: IdempotencyKey, appId: String, at now: Date) throws -> CreateOutcome? {
        let found = try db.withStatement(
            """
            SELECT k.request_hash, k.created_at, n.id, n.first_delivery_id, n.last_delivery_id
            FROM idempotency_keys AS k JOIN notifications AS n ON n.id = k.notification_id
            WHERE k.app_id = ?1 AND k.scope = ?2 AND k.key = ?3
            """
        ) { row -> (hash: Data, createdAt: Int64, notificationId: String, deliveries: DeliveryRun)? in
            try bind(key, appId: appId, to: row)
            guard try row.step() else { return nil }
            return (row.data(0), row.int64(1), row.string(2), DeliveryRun(row, first: 3))
        }
        guard let found else { return nil }
        guard found.createdAt > Self.forgottenUpTo(now) else {
            try db.withStatement("DELETE FROM idempotency_keys WHERE app_id = ?1 AND scope = ?2 AND key = ?3") {
                try bind(key, appId: appId, to: $0)
                try $0.run()
            }
            return nil
        }
        let notificationId = try StoredValues.uuid(found.notificationId)
        guard found.hash == key.requestHash else { return .keyReused(notificationId: notificationId) }
        return .duplicate(notificationId: notificationId, devices: try count(found.deliveries))
    }

    /// Inside ``createNotification(_:recipients:idempotencyKey:)``'s transaction: writes a row for each of
    /// `key`'s identities for the notification `notificationId` (lowercase text) made at `now`, and deletes up
    /// to ``forgottenKeysPerInsert`` forgotten keys of any app, oldest first.
    /// - Throws: ``StoreError`` `.constraint` when the key is remembered already (the unique index).
    func remember(_ key: IdempotencyKey, appId: String, notificationId: String, at now: Date) throws {
        try db.withStatement(
            """
            DELETE FROM idempotency_keys WHERE rowid IN (
                SELECT rowid FROM idempotency_keys WHERE created_at <= ?1 ORDER BY created_at LIMIT ?2
            )
            """
        ) {
            try $0.bind(1, Self.forgottenUpTo(now))
            try $0.bind(2, Self.forgottenKeysPerInsert)
            try $0.run()
        }
        for identity in key.identities {
            try db.withStatement(
                """
                INSERT INTO idempotency_keys (app_id, scope, key, request_hash, notification_id, created_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """
            ) {
                try bind(identity, appId: appId, to: $0)
                try $0.bind(4, identity.requestHash)
                try $0.bind(5, notificationId)
                try $0.bind(6, now)
                try $0.run()
            }
        }
    }

    /// The latest `created_at` (UNIX epoch MILLISECONDS, as stored) of a key forgotten at `now`: both sides
    /// in whole milliseconds, so a key is forgotten exactly ``IdempotencyKey/retention`` after it was stored.
    private static func forgottenUpTo(_ now: Date) -> Int64 {
        SQLiteStatement.milliseconds(now) - Int64(IdempotencyKey.retention / .milliseconds(1))
    }

    /// Binds the key's identity (app id, scope, key) to ?1, ?2 and ?3.
    private func bind(_ key: IdempotencyKey, appId: String, to statement: SQLiteStatement) throws {
        try statement.bind(1, appId)
        try statement.bind(2, key.scope)
        try statement.bind(3, key.key)
    }
}
