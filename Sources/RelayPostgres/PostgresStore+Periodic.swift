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

    public func lastPeriodicRun(job: String) async throws -> Date? {
        try db.query("SELECT last_run_at FROM periodic_runs WHERE job = $1", job).all.first.map {
            EpochMilliseconds.date(try $0.int64(0))
        }
    }

    /// Notifications another relay's retention run holds are skipped (`SKIP LOCKED`), not waited for. Each
    /// one's deliveries are deleted by its range (``deleteDeliveriesSQL``), then the notifications and their
    /// idempotency keys together, in a transaction that reads index ranges in order (``seekingOnly(_:)``): the
    /// probe for a pending delivery reads each range from its end, as the finished probe does.
    public func deleteFinishedNotifications(createdBefore: Date, limit: Int) async throws -> Int {
        try seekingOnly {
            let due = try db.query(Self.finishedBeforeSQL, createdBefore, max(0, limit)).all.map { try $0.uuid(0) }
            guard !due.isEmpty else { return 0 }
            for id in due { try db.query(Self.deleteDeliveriesSQL, id) }
            let ids = try StoredValues.jsonList(due.map(\.lowercasedString))
            return try db.query(Self.deleteNotificationsSQL, ids).changed
        }
    }

    /// Up to $2 notifications created before $1 with no pending delivery, oldest first, locked.
    static let finishedBeforeSQL = """
        SELECT id FROM notifications AS n
        WHERE created_at < $1 AND \(NotificationDeliveriesSQL.newestPending(of: "n")) IS NULL
        ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
        """

    /// Deletes notification $1's deliveries: a range of the primary key (``NotificationDeliveriesSQL``), one
    /// notification at a time, so a batch's deliveries are never gathered in one place (as one join of the
    /// batch's ranges, their unknown bounds were planned as a read of the whole table).
    static let deleteDeliveriesSQL =
        "DELETE FROM deliveries AS d WHERE \(NotificationDeliveriesSQL.of(id: "$1", delivery: "d"))"

    /// Deletes the notifications of $1 (a JSON array of ids) and their idempotency keys, a seek of each
    /// one's index per id.
    static let deleteNotificationsSQL = """
        WITH keys_gone AS (
            DELETE FROM idempotency_keys WHERE notification_id = \(anyId(of: "$1", type: "uuid"))
        )
        DELETE FROM notifications WHERE id = \(anyId(of: "$1", type: "uuid"))
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
