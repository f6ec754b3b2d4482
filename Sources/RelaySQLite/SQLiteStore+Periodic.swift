import Foundation
import RelayStore

extension SQLiteStore {
    public func claimPeriodicRun(job: String, owner: String, now: Date, interval: Duration) async throws -> Bool {
        try db.withStatement(
            """
            INSERT INTO periodic_runs (job, next_run_at, owner, last_run_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (job) DO UPDATE SET next_run_at = excluded.next_run_at, owner = excluded.owner,
                last_run_at = excluded.last_run_at
            WHERE periodic_runs.next_run_at <= excluded.last_run_at
            """
        ) {
            try $0.bind(1, job)
            try $0.bind(2, now + interval.timeInterval)
            try $0.bind(3, owner)
            try $0.bind(4, now)
            try $0.run()
            return db.changes == 1
        }
    }

    public func lastPeriodicRun(job: String) async throws -> Date? {
        try db.withStatement("SELECT last_run_at FROM periodic_runs WHERE job = ?1") { row in
            try row.bind(1, job)
            return try row.step() ? EpochMilliseconds.date(row.int64(0)) : nil
        }
    }

    public func deleteFinishedNotifications(createdBefore: Date, limit: Int) async throws -> Int {
        try db.transaction {
            let due = try db.withStatement(
                """
                SELECT id, first_delivery_id, last_delivery_id FROM notifications AS n
                WHERE created_at < ?1 AND NOT EXISTS (
                    SELECT 1 FROM deliveries
                    WHERE id BETWEEN n.first_delivery_id AND n.last_delivery_id AND status = 'pending'
                )
                ORDER BY created_at LIMIT ?2
                """
            ) { row -> [(id: String, deliveries: DeliveryRun)] in
                try row.bind(1, createdBefore)
                try row.bind(2, max(0, limit))
                var found: [(id: String, deliveries: DeliveryRun)] = []
                while try row.step() { found.append((row.string(0), DeliveryRun(row, first: 1))) }
                return found
            }
            for notification in due {
                try db.withStatement("DELETE FROM deliveries WHERE id BETWEEN ?1 AND ?2") {
                    try notification.deliveries.bind(to: $0, at: 1)
                    try $0.run()
                }
                for table in ["idempotency_keys WHERE notification_id", "notifications WHERE id"] {
                    try db.withStatement("DELETE FROM \(table) = ?1") {
                        try $0.bind(1, notification.id)
                        try $0.run()
                    }
                }
            }
            return due.count
        }
    }

    public func deleteRetiredDevices(retiredBefore: Date, limit: Int) async throws -> Int {
        try db.transaction {
            try db.withStatement(
                """
                DELETE FROM devices WHERE (app_id, token) IN (
                    SELECT app_id, token FROM devices INDEXED BY devices_by_retirement
                    WHERE state = 'retired' AND retired_at < ?1 ORDER BY retired_at LIMIT ?2
                )
                """
            ) {
                try $0.bind(1, retiredBefore)
                try $0.bind(2, max(0, limit))
                try $0.run()
            }
            return db.changes
        }
    }

    /// The lease's end is the job's `next_run_at`.
    public func holdPeriodicLease(job: String, owner: String, now: Date, duration: Duration) async throws -> Bool {
        try db.withStatement(
            """
            INSERT INTO periodic_runs (job, next_run_at, owner, last_run_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (job) DO UPDATE SET next_run_at = excluded.next_run_at, owner = excluded.owner,
                last_run_at = excluded.last_run_at
            WHERE periodic_runs.owner = excluded.owner OR periodic_runs.next_run_at <= excluded.last_run_at
            """
        ) {
            try $0.bind(1, job)
            try $0.bind(2, now + duration.timeInterval)
            try $0.bind(3, owner)
            try $0.bind(4, now)
            try $0.run()
            return db.changes == 1
        }
    }
}
