import Foundation
import RelayStore

extension PostgresStore {
    /// A concurrent claim of the job waits on its row, then finds it no longer due.
    public func claimPeriodicRun(job: String, owner: String, now: Date, interval: Duration) async throws -> Bool {
        try db.query(
            """
            INSERT INTO periodic_runs (job, next_run_at, owner, last_run_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (job) DO UPDATE SET next_run_at = excluded.next_run_at, owner = excluded.owner,
                last_run_at = excluded.last_run_at
            WHERE periodic_runs.next_run_at <= excluded.last_run_at
            """,
            job,
            now + interval.timeInterval,
            owner,
            now
        ).changed == 1
    }

    /// Notifications another relay's retention run holds are skipped (`SKIP LOCKED`), not waited for.
    public func deleteFinishedNotifications(createdBefore: Date, limit: Int) async throws -> Int {
        try db.transaction {
            try db.query(
                """
                WITH due AS (
                    SELECT id FROM notifications AS n
                    WHERE created_at < $1 AND NOT EXISTS (
                        SELECT 1 FROM deliveries WHERE notification_id = n.id AND status = 'pending'
                    )
                    ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
                ), deliveries_gone AS (
                    DELETE FROM deliveries WHERE notification_id IN (SELECT id FROM due)
                ), keys_gone AS (
                    DELETE FROM idempotency_keys WHERE notification_id IN (SELECT id FROM due)
                )
                DELETE FROM notifications WHERE id IN (SELECT id FROM due)
                """,
                createdBefore,
                max(0, limit)
            ).changed
        }
    }

    public func deleteRetiredDevices(retiredBefore: Date, limit: Int) async throws -> Int {
        try db.query(
            """
            DELETE FROM devices WHERE ctid IN (
                SELECT ctid FROM devices WHERE state = 'retired' AND retired_at < $1
                ORDER BY retired_at LIMIT $2 FOR UPDATE SKIP LOCKED
            )
            """,
            retiredBefore,
            max(0, limit)
        ).changed
    }

    /// The lease's end is the job's `next_run_at`; a concurrent take waits on the row, then finds it held.
    public func holdPeriodicLease(job: String, owner: String, now: Date, duration: Duration) async throws -> Bool {
        try db.query(
            """
            INSERT INTO periodic_runs (job, next_run_at, owner, last_run_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (job) DO UPDATE SET next_run_at = excluded.next_run_at, owner = excluded.owner,
                last_run_at = excluded.last_run_at
            WHERE periodic_runs.owner = excluded.owner OR periodic_runs.next_run_at <= excluded.last_run_at
            """,
            job,
            now + duration.timeInterval,
            owner,
            now
        ).changed == 1
    }
}
