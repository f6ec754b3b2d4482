import Foundation
import RelayCore
import RelayStore

/// The ``RelayStore/Store`` on PostgreSQL, through one libpq connection.
///
/// Threading: an actor whose executor is a ``RelayStore/StoreThreadExecutor``, i.e. ONE dedicated thread.
/// Every blocking libpq call runs there, never on Swift's cooperative pool; callers just `await`. The
/// initializer is the exception: it connects and migrates synchronously on the caller's thread, once, at
/// start-up.
///
/// Several relays may share one database: claims of one app take turns and lease what they take
/// (`delivery_leases`, a row per run of ids), so two claims never take one delivery. Schema:
/// ``PostgresMigrations``. Times are UNIX epoch MILLISECONDS, as in `SQLiteStore` (module RelaySQLite).
public actor PostgresStore: Store {
    /// Migration steps applied by this open (0 when the database was already current).
    public nonisolated let appliedMigrations: Int
    /// The schema version after opening.
    public nonisolated let schemaVersion: Int

    let db: PostgresConnection
    private let executor: StoreThreadExecutor
    /// The connection URI, for the listening connection (``setOutboxWakeHandler(_:)``); never logged.
    private let url: String
    private let logger: Logger
    /// Set while a wake handler is: its own connection LISTENs on ``outboxChannel``.
    private var listener: PostgresListener?
    /// The channel of this schema's outbox wake-ups (``PostgresListener/outboxChannelSQL()``).
    private let outboxChannel: String
    /// Set once an instance is claimed: reopens the connection lost with its lock (``watchInstanceLock()``).
    private var lockWatch: Task<Void, Never>?
    private let timeSource: any TimeSource
    /// Which apps' retirements queue feedback (``setFeedbackPolicy(_:)``); none until set.
    var feedbackPolicy = FeedbackPolicy.none
    /// Where read positions come from and which apps' claims carry badges (``setUnreadPolicy(_:)``).
    var unreadPolicy = UnreadPolicy.none
    /// Where the relay's last claim of each app stopped, shared by the stores of a pool.
    let claimCursors: ClaimCursors

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Connects to the database at `url` and migrates it.
    ///
    /// - Parameters:
    ///   - url: a libpq connection URI, e.g. `postgresql://relay@db.internal/relay` (the password from the URI,
    ///     `PGPASSWORD` or `~/.pgpass`); the tables live in the connection's first `search_path` schema.
    ///   - timeSource: the clock for the few writes that take no time argument (``deleteDevice(appId:token:)``,
    ///     ``checkWritable()``).
    ///   - statementTimeout: SECONDS a statement may wait for the server (client side, so also when the
    ///     server is frozen) before the call fails with `.io` and the connection is reopened; connecting
    ///     waits at most 5 s unless `url` sets `connect_timeout`.
    /// - Throws: ``RelayStore/StoreError`` `.open` (cannot connect), `.migration` (a step failed, or the
    ///   schema is newer than this build).
    public init(
        url: String,
        logger: Logger,
        timeSource: any TimeSource = SystemTimeSource(),
        statementTimeout: Double = 10
    ) throws {
        try self.init(
            url: url,
            logger: logger,
            timeSource: timeSource,
            statementTimeout: statementTimeout,
            fence: InstanceFence(logger: logger),
            claimCursors: ClaimCursors()
        )
    }

    /// Whether the database at `url` holds a PushRelay store in the connection's schema (its schema version
    /// table with a version), read without migrating: a command that works on an existing store refuses an
    /// empty database instead of making one there.
    /// - Throws: ``RelayStore/StoreError`` `.open` when it cannot connect.
    public static func holdsStore(url: String) throws -> Bool {
        let db = try PostgresConnection(url: url)
        let found = try db.query("SELECT to_regclass('relay_schema_version') IS NOT NULL")[0].bool(0)
        return try found && storedVersion(db) > 0
    }

    /// The schema version the store's table records (0 when none); the table must exist.
    private static func storedVersion(_ db: PostgresConnection) throws -> Int {
        let rows = try db.query("SELECT coalesce(max(version), 0) FROM relay_schema_version")
        return try rows.count > 0 ? rows[0].int(0) : 0
    }

    /// ``init(url:logger:timeSource:statementTimeout:)`` with the relay's ``InstanceFence`` and claim
    /// cursors, shared by the stores of a pool.
    init(
        url: String,
        logger: Logger,
        timeSource: any TimeSource,
        statementTimeout: Double,
        fence: InstanceFence,
        claimCursors: ClaimCursors
    ) throws {
        let db = try PostgresConnection(url: url, statementTimeout: statementTimeout, fence: fence)
        let (applied, version) = try Self.migrate(db)
        let outboxChannel = try db.query(PostgresListener.outboxChannelSQL())[0].string(0)
        logger.info(
            "opened PostgreSQL store",
            [
                "store.database": db.location, "store.schema_version": version,
                "store.migrations_applied": applied,
            ]
        )
        self.db = db
        self.appliedMigrations = applied
        self.schemaVersion = version
        self.timeSource = timeSource
        self.url = url
        self.logger = logger
        self.outboxChannel = outboxChannel
        self.claimCursors = claimCursors
        self.executor = StoreThreadExecutor(name: "relay-postgres")
    }

    deinit {
        lockWatch?.cancel()
        listener?.stop()
        executor.shutdown()
    }

    /// Holds `id` with a session advisory lock (``PostgresConnection/takeInstanceLock(_:)``): the server
    /// drops it when this store's session ends, however the process ended, so a restart takes it at once
    /// (waiting up to 3 s for a session that is ending), and a second live relay given the same id is
    /// refused. An id the store holds already is kept.
    ///
    /// A lost connection (a server restart) is noticed within about a second and reopened, and the lock
    /// taken back before anything else runs there. When another process took it meanwhile, the relay's
    /// ``InstanceFence`` closes: a critical line, and every call of the relay's stores throws
    /// `.instanceInUse` from then on.
    public func claimInstance(_ id: String) async throws {
        if let unfinished = try await unfinishedCopy() { throw unfinished }
        guard !db.instanceLocks.contains(id) else { return }
        guard try db.takeInstanceLock(id) else {
            throw StoreError(
                code: .instanceInUse,
                message: "instance id '\(id)' is in use by another live relay on this database; "
                    + "give each relay its own delivery.instanceId"
            )
        }
        db.instanceLocks.append(id)
        if lockWatch == nil {
            lockWatch = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard let self else { return }
                    await self.watchInstanceLock()
                }
            }
        }
    }

    /// Reopens the connection holding the instance locks when the server closed it, taking them back
    /// (or closing the fence); a server still down is tried again on the next round.
    private func watchInstanceLock() {
        _ = try? db.reconnectIfLost()
    }

    /// Listens for the outbox's wake-ups on a connection of its own (``PostgresListener``) while `handler`
    /// is set: every transaction that makes deliveries due sends one (``notifyOutbox()``). Returns once it
    /// listens (see ``PostgresListener``).
    public func setOutboxWakeHandler(_ handler: (@Sendable () -> Void)?) async {
        listener?.stop()
        listener = handler.map { PostgresListener(url: url, channel: outboxChannel, logger: logger, handler: $0) }
    }

    /// Tells the listening relays, when the current transaction commits, that deliveries are due.
    /// PostgreSQL folds identical notifications of one transaction into one.
    func notifyOutbox() throws {
        try db.query("SELECT pg_notify($1, '')", outboxChannel)
    }

    /// Applies the missing ``PostgresMigrations`` steps and the version in ONE transaction, holding the
    /// migration advisory lock, so relays starting at once wait for the first and then find the schema
    /// current. Returns how many were applied and the resulting version.
    private static func migrate(_ db: PostgresConnection) throws -> (applied: Int, version: Int) {
        let steps = PostgresMigrations.steps
        return try db.transaction {
            try db.query("SELECT pg_advisory_xact_lock($1)", PostgresMigrations.lockKey)
            try db.execute("CREATE TABLE IF NOT EXISTS relay_schema_version (version integer NOT NULL)")
            let version = try storedVersion(db)
            if version > steps.count {
                throw StoreError(
                    code: .migration,
                    message: "schema version \(version) is newer than this build knows (\(steps.count))"
                )
            }
            for step in version..<steps.count {
                do { try db.execute(steps[step]) } catch let error as StoreError {
                    throw StoreError(code: .migration, message: "migration \(step + 1): \(error.message)")
                }
            }
            if version < steps.count {
                try db.execute("DELETE FROM relay_schema_version")
                try db.query("INSERT INTO relay_schema_version (version) VALUES ($1)", steps.count)
            }
            return (steps.count - version, steps.count)
        }
    }

    /// True when the caller runs on the store's own thread (tests check that calls never run elsewhere).
    nonisolated var isOnStoreThread: Bool { executor.isCurrent }

    var now: Date { timeSource.now }

}
