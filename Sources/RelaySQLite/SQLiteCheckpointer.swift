import CSQLite
import Foundation
import RelayCore
import RelayStore

/// Keeps a WAL database's checkpoints mostly off the store's thread, and its WAL bounded.
///
/// SQLite's automatic checkpoint runs on the committing connection: measured with strace during a
/// 100,000-device fan-out, it held the store's thread in `fdatasync` for up to 104 ms at a time (the WAL's
/// and then the database's), long enough for the dispatcher's lanes to run dry. Checkpointing only on another
/// thread is not enough either: a WAL restarts (its writer goes back to its start) only when a checkpoint has
/// copied every frame in it (SQLite, "Write-Ahead Logging", section "Avoiding Excessively Large WAL Files"),
/// and a background checkpoint rarely catches a writer that commits without pause (2 GB of WAL after seeding
/// 100,000 devices). So this does both, from the store connection's `sqlite3_wal_hook` after each commit:
/// - every ``backgroundPages`` new WAL pages, its own thread runs a PASSIVE checkpoint on its own connection
///   (`sqlite3_wal_checkpoint_v2`): it copies what no reader still needs, without the write lock, while the
///   store goes on committing, and then syncs the database file (SQLite syncs it only when a checkpoint
///   reaches the WAL's end, which left the whole write-back to the checkpoint that did);
/// - at ``restartPages`` the committing connection runs a PASSIVE checkpoint itself, as SQLite's automatic
///   checkpoint would; the background has copied all but the last pages, so this one copies and syncs little,
///   and once it has copied everything the next write restarts the WAL. While the background checkpoint runs,
///   this one returns `SQLITE_BUSY` at once and the next commit tries again.
///
/// `@unchecked Sendable`: `requested`, `stopped` and `finished` are only touched with `condition` locked;
/// `nextRequestAt` and `lastPages` only by the hook, on the thread of the store's connection; the checkpoint
/// connection only by the checkpoint thread.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// New WAL pages (of the database's page size, 4 KiB by default) between background checkpoints.
    let backgroundPages: Int32
    /// WAL size, in pages, at which the committing connection checkpoints so that the WAL can restart.
    let restartPages: Int32
    private let connection: SQLiteConnection
    /// The database file, opened read-only for `fdatasync(2)` alone.
    private let databaseFD: Int32
    private let logger: Logger
    private let condition = NSCondition()
    private var requested = false
    private var stopped = false
    private var finished = false
    private var nextRequestAt: Int32
    private var lastPages: Int32 = 0

    /// Opens a second connection to `path` (a database already in WAL mode) and starts the thread.
    /// - Throws: ``StoreError`` `.open` when the connection cannot be opened or does not see WAL mode.
    init(path: String, backgroundPages: Int, restartPages: Int, logger: Logger) throws {
        connection = try SQLiteConnection(path: path)
        // A connection learns the journal mode when it first reads the file; until then a checkpoint on it
        // does nothing (sqlite3_wal_checkpoint_v2 reports -1 frames).
        let mode = try connection.withStatement("PRAGMA journal_mode") { try $0.step() ? $0.string(0) : "" }
        guard mode == "wal" else {
            throw StoreError(code: .open, message: "\(path) is not in WAL mode for the checkpointer ('\(mode)')")
        }
        databaseFD = open(path, O_RDONLY | O_CLOEXEC)
        guard databaseFD >= 0 else {
            throw StoreError(code: .open, message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.backgroundPages = Int32(clamping: backgroundPages)
        self.restartPages = Int32(clamping: restartPages)
        nextRequestAt = self.backgroundPages
        self.logger = logger
        let thread = Thread { [self] in
            ThreadName.setForThisThread("sqlite-checkpt")
            run()
        }
        thread.start()
    }

    /// Has `db` report its WAL size here after each commit, replacing SQLite's automatic checkpoints on it;
    /// `db` keeps this object until it closes.
    func install(on db: SQLiteConnection) {
        db.walHookOwner = self
        sqlite3_wal_hook(db.raw, Self.walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Ends the thread after any checkpoint in progress and closes its connection; returns when it is closed.
    /// Call before closing the store's connection: the last connection to close checkpoints the whole WAL
    /// and deletes it (SQLite, "Write-Ahead Logging"), and that must be the store's, which does not wait.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        while !finished { condition.wait() }
        condition.unlock()
    }

    /// `sqlite3_wal_hook` callback, on the committing connection's thread after its commit; `pages` is the
    /// WAL's size in pages.
    private static let walHook:
        @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
            context,
            db,
            _,
            pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(db: db, pages: pages)
            return SQLITE_OK
        }

    private func committed(db: OpaquePointer?, pages: Int32) {
        if pages < lastPages { nextRequestAt = backgroundPages }  // the WAL restarted
        lastPages = pages
        if pages >= restartPages {
            // SQLITE_BUSY while the background checkpoint runs: the next commit tries again.
            _ = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        } else if pages >= nextRequestAt {
            nextRequestAt = pages + backgroundPages
            condition.lock()
            requested = true
            condition.signal()
            condition.unlock()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while !requested && !stopped { condition.wait() }
            if stopped {
                connection.close()
                Glibc.close(databaseFD)
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            requested = false
            condition.unlock()
            let rc = sqlite3_wal_checkpoint_v2(connection.raw, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            if rc == SQLITE_OK { fdatasync(databaseFD) }
            if rc != SQLITE_OK && rc != SQLITE_BUSY {
                logger.warning(
                    "WAL checkpoint failed",
                    ["error": connection.error(rc, call: "sqlite3_wal_checkpoint_v2").message]
                )
            }
        }
    }
}
