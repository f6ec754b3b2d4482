import CSQLite
import Foundation
import RelayCore

/// Checkpoints a WAL database on a thread of its own, so the store's thread never waits for a checkpoint's
/// fsyncs: measured with strace during a 100,000-device fan-out, SQLite's automatic checkpoints held the
/// store's thread in `fdatasync` for up to 104 ms at a time, long enough for the dispatcher's lanes to run dry.
///
/// The store's connection reports the WAL's size after each commit (``install(on:)``, `sqlite3_wal_hook`,
/// which also turns SQLite's automatic checkpoints off for that connection; the connection keeps this object
/// until it closes, so the hook never outlives it). Once it reaches
/// ``walPages``, this thread runs a PASSIVE checkpoint on its own connection (SQLite, "Checkpoint a
/// database", sqlite3_wal_checkpoint_v2): it copies into the database file what no reader still needs and
/// syncs it, without the write lock, while the store's thread goes on committing to the WAL.
///
/// `@unchecked Sendable`: `requested` and `stopped` are only touched with `condition` locked; the connection
/// only by the checkpoint thread, which keeps this object alive until it has closed it.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// WAL size, in pages, that asks for a checkpoint (SQLite's automatic checkpoint uses 1,000).
    let walPages: Int32
    private let connection: SQLiteConnection
    private let logger: Logger
    private let condition = NSCondition()
    private var requested = false
    private var stopped = false

    /// Opens a second connection to `path` (a database already in WAL mode) and starts the thread.
    /// - Throws: ``StoreError`` `.open` when the connection cannot be opened or does not see WAL mode.
    init(path: String, walPages: Int, logger: Logger) throws {
        connection = try SQLiteConnection(path: path)
        // A connection learns the journal mode when it first reads the file; until then a checkpoint on it
        // does nothing (sqlite3_wal_checkpoint_v2 reports -1 frames).
        let mode = try connection.withStatement("PRAGMA journal_mode") { try $0.step() ? $0.string(0) : "" }
        guard mode == "wal" else {
            throw StoreError(code: .open, message: "\(path) is not in WAL mode for the checkpointer ('\(mode)')")
        }
        self.walPages = Int32(clamping: walPages)
        self.logger = logger
        let thread = Thread { [self] in
            Thread.current.name = "sqlite-checkpt"
            run()
        }
        thread.start()
    }

    /// Has `db` report its WAL size here after each commit; `db` keeps this object until it closes.
    func install(on db: SQLiteConnection) {
        db.walHookOwner = self
        sqlite3_wal_hook(db.raw, Self.walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Lets the thread end after any checkpoint in progress, closing its connection; returns at once, so the
    /// caller (the store's deinit, possibly on Swift's cooperative pool) never waits for a checkpoint's fsyncs.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// `sqlite3_wal_hook` callback, on the committing connection's thread: cheap, never blocks on a checkpoint.
    private static let walHook:
        @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
            context,
            _,
            _,
            pages in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
            if pages >= checkpointer.walPages { checkpointer.request() }
            return SQLITE_OK
        }

    private func request() {
        condition.lock()
        requested = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while !requested && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                connection.close()
                return
            }
            requested = false
            condition.unlock()
            var walFrames: Int32 = 0
            var copied: Int32 = 0
            let rc = sqlite3_wal_checkpoint_v2(connection.raw, nil, SQLITE_CHECKPOINT_PASSIVE, &walFrames, &copied)
            if rc != SQLITE_OK && rc != SQLITE_BUSY {
                logger.warning(
                    "WAL checkpoint failed",
                    ["error": connection.error(rc, call: "sqlite3_wal_checkpoint_v2").message]
                )
            }
        }
    }
}
