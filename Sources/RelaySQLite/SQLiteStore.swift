import CSQLite
import Foundation
import RelayCore
import RelayStore

/// The ``Store`` on one SQLite file (WAL, `synchronous=NORMAL`, foreign keys on, busy timeout).
///
/// Threading: an actor whose executor is a ``StoreThreadExecutor``, i.e. ONE dedicated thread. Every
/// blocking SQLite call (and the busy-timeout wait) runs there, never on Swift's cooperative pool; callers
/// just `await`. The initializer is the exception: it opens the file and migrates synchronously on the
/// caller's thread, once, at start-up.
///
/// One connection for reads and writes, prepared statements cached and reused; WAL checkpoints mostly on a
/// second connection and thread (``SQLiteCheckpointer``). Schema: ``SQLiteMigrations``, tracked in
/// `PRAGMA user_version`, each step in its own transaction. Times are UNIX epoch MILLISECONDS, UUIDs
/// lowercase text.
public actor SQLiteStore: Store {
    /// Where the database file is.
    public nonisolated let path: String
    /// Migration steps applied by this open (0 when the file was already current).
    public nonisolated let appliedMigrations: Int
    /// The schema version after opening (`PRAGMA user_version`).
    public nonisolated let schemaVersion: Int

    let db: SQLiteConnection
    private let executor: StoreThreadExecutor
    private let checkpointer: SQLiteCheckpointer
    private let logger: Logger
    private let timeSource: any TimeSource
    /// Which apps' retirements queue feedback (``setFeedbackPolicy(_:)``); none until set.
    var feedbackPolicy = FeedbackPolicy.none
    /// Where read positions come from and which apps' claims carry badges (``setUnreadPolicy(_:)``).
    var unreadPolicy = UnreadPolicy.none
    /// Where each app's last claim stopped (``claimDueDeliveries(appId:now:limit:leaseSeconds:owner:)``).
    var claimCursors: [String: ClaimCursor] = [:]
    /// The lock on the file held since the first ``claimInstance(_:)``.
    private var instanceLock: InstanceLock?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens or creates the database at `path` (creating missing parent directories) and migrates it.
    ///
    /// - Parameters:
    ///   - path: the file, e.g. `.data/push-relay.sqlite`; SQLite adds `-wal` and `-shm` files beside it.
    ///   - busyTimeoutMilliseconds: how long a call waits for another connection's lock before `.busy`.
    ///   - timeSource: the clock for the few writes that take no time argument (``deleteDevice(appId:token:)``,
    ///     ``checkWritable()``).
    ///   - claiming: an instance id to take the file's lock for (``claimInstance(_:)``) BEFORE the file is
    ///     opened or migrated, so a file another live process holds is left untouched (`storage copy`'s
    ///     destination); nil: claimed later, or not at all.
    /// - Throws: ``StoreError`` `.open` (cannot create or open), `.corrupt` (not a database), `.migration`
    ///   (the schema is newer than this build), `.instanceInUse` (another live process holds the file).
    public init(
        path: String,
        logger: Logger,
        busyTimeoutMilliseconds: Int = 5000,
        timeSource: any TimeSource = SystemTimeSource(),
        claiming instanceId: String? = nil
    ) throws {
        try Self.prepare(path)
        let lock = try instanceId.map { id in
            try InstanceLock(path: InstanceLock.path(of: path), database: path, instanceId: id)
        }
        try self.init(
            path: path,
            logger: logger,
            busyTimeoutMilliseconds: busyTimeoutMilliseconds,
            timeSource: timeSource,
            removeOnDeinit: nil,
            instanceLock: lock
        )
    }

    /// The files a store at `path` keeps: the database, its WAL and shared memory, and its instance lock
    /// (``InstanceLock``). Read before the database is removed: the lock is named after its real path.
    public static func files(of path: String) -> [String] {
        [path, "\(path)-wal", "\(path)-shm", InstanceLock.path(of: path)]
    }

    /// A store on a new file in a new temporary directory, which is deleted when the store is released.
    /// For tests and tools.
    /// - Throws: ``StoreError`` as ``init(path:logger:busyTimeoutMilliseconds:timeSource:)``.
    public static func temporary(
        logger: Logger = .disabled(),
        timeSource: any TimeSource = SystemTimeSource()
    ) throws -> SQLiteStore {
        try temporary(logger: logger, timeSource: timeSource, checkpointPages: defaultCheckpointPages)
    }

    /// ``temporary(logger:timeSource:)`` with other WAL sizes for ``SQLiteCheckpointer`` (tests).
    static func temporary(
        logger: Logger = .disabled(),
        timeSource: any TimeSource = SystemTimeSource(),
        checkpointPages: (background: Int, restart: Int)
    ) throws -> SQLiteStore {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-relay-store-\(UUID().lowercasedString)")
        let path = directory.appendingPathComponent("push-relay.sqlite").path
        try prepare(path)
        return try SQLiteStore(
            path: path,
            logger: logger,
            busyTimeoutMilliseconds: 5000,
            timeSource: timeSource,
            removeOnDeinit: directory,
            checkpointPages: checkpointPages
        )
    }

    /// Creates the missing parent directories of the store's file `path` (0700) and, when the file is not
    /// there, an empty one only its owner may read and write (0600): the store holds device tokens and message
    /// texts, and SQLite gives its `-wal` and `-shm` files the database file's mode. An existing file or
    /// folder keeps its mode.
    /// - Throws: ``StoreError`` `.open` when a directory cannot be created.
    static func prepare(_ path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try Folder.make(directory.path, permissions: 0o700)
        } catch {
            throw StoreError(code: .open, message: "\(error)")
        }
        // O_EXCL: a file already there (or one that cannot be made) is left to SQLite's open, which says why.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }

    /// WAL pages between background checkpoints, and the WAL size at which the store's connection
    /// checkpoints so that the WAL restarts (``SQLiteCheckpointer``): 4 and 32 MiB of 4 KiB pages.
    static let defaultCheckpointPages = (background: 1024, restart: 8192)

    private init(
        path: String,
        logger: Logger,
        busyTimeoutMilliseconds: Int,
        timeSource: any TimeSource,
        removeOnDeinit: URL?,
        checkpointPages: (background: Int, restart: Int) = defaultCheckpointPages,
        instanceLock: InstanceLock? = nil
    ) throws {
        self.instanceLock = instanceLock
        let db = try SQLiteConnection(path: path)
        db.removeOnClose = removeOnDeinit  // closed first, so SQLite never writes into a deleted directory
        guard sqlite3_busy_timeout(db.raw, Int32(clamping: busyTimeoutMilliseconds)) == SQLITE_OK else {
            throw db.error(sqlite3_errcode(db.raw), call: "sqlite3_busy_timeout")
        }
        let mode = try db.withStatement("PRAGMA journal_mode = WAL") { try $0.step() ? $0.string(0) : "" }
        guard mode == "wal" else {
            throw StoreError(code: .open, message: "cannot switch \(path) to WAL (journal_mode is '\(mode)')")
        }
        // SQLite's own 2 MiB page cache: pages past it are read from the kernel's page cache, which holds the
        // file anyway, so a larger one costs a big fan-out's memory (each MiB filled by it) without saving
        // measurable CPU. A WAL of up to 8,192 pages (32 MiB) before it restarts writes the outbox's hot
        // pages back once instead of eight times.
        try db.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -2048;")
        let (applied, version) = try Self.migrate(db)
        let checkpointer = try SQLiteCheckpointer(
            path: path,
            backgroundPages: checkpointPages.background,
            restartPages: checkpointPages.restart,
            logger: logger
        )
        checkpointer.install(on: db)
        logger.info(
            "opened SQLite store",
            ["store.path": path, "store.schema_version": version, "store.migrations_applied": applied]
        )
        self.path = path
        self.appliedMigrations = applied
        self.schemaVersion = version
        self.db = db
        self.logger = logger
        self.timeSource = timeSource
        self.checkpointer = checkpointer
        self.executor = StoreThreadExecutor(name: "relay-sqlite")
    }

    deinit {
        checkpointer.stop()
        executor.shutdown()
    }

    /// Applies the missing ``SQLiteMigrations`` steps, each with its version bump in one transaction.
    /// Returns how many were applied and the resulting version.
    private static func migrate(_ db: SQLiteConnection) throws -> (applied: Int, version: Int) {
        let steps = SQLiteMigrations.steps
        var applied = 0
        while true {
            let done: Bool = try db.transaction {
                let version = Int(try db.scalar("PRAGMA user_version"))
                if version > steps.count {
                    throw StoreError(
                        code: .migration,
                        message: "schema version \(version) is newer than this build knows (\(steps.count))"
                    )
                }
                if version == steps.count { return true }
                do {
                    try db.execute(steps[version])
                    try db.execute("PRAGMA user_version = \(version + 1)")
                } catch let error as StoreError {
                    throw StoreError(code: .migration, message: "migration \(version + 1): \(error.message)")
                }
                applied += 1
                return false
            }
            if done { return (applied, steps.count) }
        }
    }

    /// Holds the file for this relay with a lock file beside it (`<file>.lock`, named after the file's real
    /// path, so a symbolic link or another spelling of the path meets the same lock), so a second live relay
    /// on this file does not start, whatever its instance id: SQLite serves one relay. Once held, later
    /// claims of this store are kept.
    public func claimInstance(_ id: String) async throws {
        if let unfinished = try db.unfinishedCopy() { throw unfinished }
        guard instanceLock == nil else { return }
        instanceLock = try InstanceLock(path: InstanceLock.path(of: path), database: path, instanceId: id)
    }

    /// Whether two paths name one store file however spelled (a link, `./`): the rule that names its lock file.
    public static func sameFile(_ path: String, _ other: String) -> Bool {
        InstanceLock.path(of: path) == InstanceLock.path(of: other)
    }

    /// Nothing to do: every write to the file comes from this process, whose API wakes the dispatcher itself.
    public func setOutboxWakeHandler(_ handler: (@Sendable () -> Void)?) async {}

    /// Runs raw SQL on the store's connection (tests seed large tables with it).
    func execute(_ sql: String) throws {
        try db.execute(sql)
    }

    /// Runs `body` with the connection on the store's thread (tests inspect query plans with it).
    func withConnection<T: Sendable>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        try body(db)
    }

    /// True when the caller runs on the store's own thread (tests check that calls never run elsewhere).
    nonisolated var isOnStoreThread: Bool { executor.isCurrent }

    var now: Date { timeSource.now }
}
