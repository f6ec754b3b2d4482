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
            try db.query(Self.deleteFinishedSQL, createdBefore, max(0, limit)).changed
        }
    }

    /// Deletes up to $2 notifications created before $1 with no pending delivery, their deliveries and their
    /// idempotency keys. The deliveries are found by range (``NotificationDeliveriesSQL``), a lateral subquery
    /// per notification that `OFFSET 0` keeps from being merged into a join (planned as a join, the ranges'
    /// unknown bounds made it a read of the whole table), and deleted by their row addresses.
    static let deleteFinishedSQL = """
        WITH due AS (
            SELECT id, first_delivery_id, last_delivery_id FROM notifications AS n
            WHERE created_at < $1 AND NOT EXISTS (
                SELECT 1 FROM deliveries WHERE notification_id = n.id AND status = 'pending'
            )
            ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
        ), deliveries_gone AS (
            DELETE FROM deliveries WHERE ctid = ANY (ARRAY(
                SELECT g.ctid FROM due CROSS JOIN LATERAL (
                    SELECT d.ctid FROM deliveries AS d WHERE \(NotificationDeliveriesSQL.of("due", delivery: "d"))
                    OFFSET 0
                ) AS g
            ))
        ), keys_gone AS (
            DELETE FROM idempotency_keys WHERE notification_id IN (SELECT id FROM due)
        )
        DELETE FROM notifications WHERE id IN (SELECT id FROM due)
        """

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
