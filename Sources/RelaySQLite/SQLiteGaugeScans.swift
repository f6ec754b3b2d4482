import Foundation
import RelayCore
import RelayStore

/// The scans behind the gauges one relay reports (the outbox by app, the devices by state, the feedback
/// queued), run on a thread and a read-only connection of their own, so the store's thread, which every write
/// and claim waits for, never walks a whole table (docs/bench.md has what such a scan takes).
///
/// Each scan opens its connection and closes it when done (a few times a minute at most): no connection of
/// its own outlives a scan, so the store's connection stays the last to close and leaves no WAL behind
/// (``SQLiteCheckpointer/stop()``). A read-only connection never checkpoints. In WAL mode a reader waits for
/// no writer: a scan reads the last commit before it began, and the checkpoints copy no frame past it while
/// it runs. A scan that cannot open its connection fails its call, as the store's own would.
actor SQLiteGaugeScans {
    private let path: String
    private let busyTimeoutMilliseconds: Int
    private let executor = StoreThreadExecutor(name: "sqlite-gauges")

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(path: String, busyTimeoutMilliseconds: Int) {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    deinit { executor.shutdown() }

    /// ``RelayStore/Store/outboxCounts(now:)``: two reads in one snapshot, the pending deliveries by app over
    /// `deliveries_due` (app, due time: the index holds every column read), and the pending deliveries the
    /// live lease runs cover (a run is one app and due time, a range of ids).
    func outboxCounts(now: Date) throws -> [String: OutboxCounts] {
        try scan { db in
            var counts: [String: OutboxCounts] = [:]
            // Until the leases are read, `due` counts the leased due deliveries too and `leased` is 0.
            try db.withStatement(
                """
                SELECT app_id, count(*), sum(next_attempt_at <= ?1), 0,
                    min(CASE WHEN next_attempt_at <= ?1 THEN next_attempt_at END)
                FROM deliveries WHERE status = 'pending' GROUP BY app_id
                """
            ) { row in
                try row.bind(1, now)
                while try row.step() { counts[row.string(0)] = try OutboxCounts(row: row, from: 1) }
            }
            let leasedSQL = LeaseSQL.leasedByAppSQL(
                now: "?1",
                deliveries: "deliveries AS d INDEXED BY deliveries_due"
            )
            try db.withStatement(leasedSQL) { row in
                try row.bind(1, now)
                var leased: [String: Int] = [:]
                while try row.step() { leased[row.string(0)] = row.int(1) }
                counts.setLeased(leased)
            }
            return counts
        }
    }

    /// ``RelayStore/Store/deviceCounts()``.
    func deviceCounts() throws -> [DeviceState: Int] {
        try scan { db in
            try db.withStatement("SELECT \(DeviceState.countColumns) FROM devices") { statement in
                // An aggregate without GROUP BY answers one row.
                guard try statement.step() else {
                    throw StoreError(code: .invalidData, message: "the device counts answered no row")
                }
                return try DeviceState.counts(row: statement)
            }
        }
    }

    /// ``RelayStore/Store/pendingFeedbackCount()``.
    func pendingFeedbackCount() throws -> Int {
        try scan { Int(try $0.scalar("SELECT count(*) FROM feedback")) }
    }

    /// Runs `body` in one read transaction on a connection opened for it, then closes the connection.
    private func scan<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let db = try SQLiteConnection(path: path, readOnly: true)
        defer { db.close() }
        try db.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        try db.execute("BEGIN")
        defer { try? db.execute("COMMIT") }
        return try body(db)
    }
}
