import Foundation

extension PostgresConnection {
    /// $1 an instance id: takes its advisory lock for the session, true when taken (two-key form, so it
    /// never meets the migration's one-key lock), and the session's start (``PostgresSession``). The key is
    /// the hash of the schema and the id: advisory locks belong to the whole database, and relays of another
    /// schema on it are another deployment.
    static let instanceLockSQL = """
        SELECT pg_try_advisory_lock(\(PostgresMigrations.instanceLockClass), hashtext(current_schema() || '/' || $1)),
            (SELECT \(PostgresSession.startSQL) FROM pg_stat_activity WHERE pid = pg_backend_pid())
        """

    /// Takes `id`'s advisory lock for this session, trying for up to 3 s: a session that just ended (the
    /// relay's last run, killed, or this connection's own lost one) may hold it a moment longer. True when
    /// taken; an id this session holds already is taken again (advisory locks stack). The schema's lock is
    /// held shared with it (``schemaLockSQL``), waited for while a storage copy checks the schema (a moment),
    /// and given back when the instance lock is not won.
    /// - Throws: ``RelayStore/StoreError`` of a statement.
    func takeInstanceLock(_ id: String) throws -> Bool {
        _ = try query(Self.schemaLockSQL)
        for attempt in 0...30 {
            if attempt > 0 { usleep(100_000) }
            let row = try query(Self.instanceLockSQL, id)[0]
            if try row.bool(0) {
                lockSession = PostgresSession(pid: backendPID, startMicroseconds: try row.int64(1))
                return true
            }
        }
        _ = try query(Self.schemaUnlockSQL)
        return false
    }

    /// Whether no relay serves this schema now: the schema's lock taken exclusively without waiting (no
    /// session holds it shared), then given back at once. A storage copy asks before and after it reads.
    func schemaIsFree() throws -> Bool {
        guard
            try query(
                "SELECT pg_try_advisory_lock(\(PostgresMigrations.schemaLockClass), hashtext(current_schema()))"
            )[0].bool(0)
        else { return false }
        _ = try query("SELECT pg_advisory_unlock(\(PostgresMigrations.schemaLockClass), hashtext(current_schema()))")
        return true
    }

    /// This connection's server session now.
    func currentSession() throws -> PostgresSession {
        let start = try query("SELECT \(PostgresSession.startSQL) FROM pg_stat_activity WHERE pid = pg_backend_pid()")
        return PostgresSession(pid: backendPID, startMicroseconds: try start[0].int64(0))
    }

    /// Ends `session`, one of this connection's given up at a statement's deadline, when it still holds
    /// `id`'s lock. A session busy in a statement (waiting for a lock, say) notices its closed socket only
    /// when the statement ends; until then its lock would look taken by another process. The lock is free
    /// once the session ended (``takeInstanceLock(_:)`` waits for that); when it cannot be ended (no right
    /// to), that wait decides.
    func endGivenUpSession(_ session: PostgresSession, holding id: String) {
        _ = try? query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_locks WHERE \(Self.instanceHolderPredicate) AND pid = $2
                AND (SELECT \(PostgresSession.startSQL) FROM pg_stat_activity WHERE pid = $2) = $3
            """,
            id,
            Int(session.pid),
            session.startMicroseconds
        )
    }

    /// Holds the schema's lock (``PostgresMigrations/schemaLockClass``) shared for the session: a relay,
    /// beside its instance lock (stacked once per instance lock taken).
    static let schemaLockSQL =
        "SELECT pg_advisory_lock_shared(\(PostgresMigrations.schemaLockClass), hashtext(current_schema()))"

    /// Gives back one shared hold of the schema's lock.
    static let schemaUnlockSQL =
        "SELECT pg_advisory_unlock_shared(\(PostgresMigrations.schemaLockClass), hashtext(current_schema()))"

    /// $1 an instance id: how many sessions hold its lock (`pg_locks`), for tests and diagnosis.
    static let instanceHoldersSQL = """
        SELECT count(*)::integer FROM pg_locks WHERE \(instanceHolderPredicate)
        """

    /// Ends the sessions holding `id`'s lock, waiting up to 60 s for each to end, and takes the lock in
    /// the same statement, so the holder cannot take it back in between: a takeover as tests stage it.
    /// True when taken.
    /// - Throws: ``RelayStore/StoreError`` of the statement.
    func takeInstanceLockFromHolders(_ id: String) throws -> Bool {
        let rows = try query(
            """
            SELECT pg_try_advisory_lock(\(PostgresMigrations.instanceLockClass), hashtext(current_schema() || '/' || $1))
            FROM (SELECT bool_and(pg_terminate_backend(pid, 60000)) AS ended FROM pg_locks
                WHERE \(Self.instanceHolderPredicate)) AS holders
            WHERE holders.ended
            """,
            id
        )
        return try rows.count > 0 && rows[0].bool(0)
    }

    /// The `pg_locks` rows of the lock of instance id $1, granted (two-key advisory locks have objsubid 2).
    private static let instanceHolderPredicate = """
        locktype = 'advisory' AND granted AND objsubid = 2 AND classid = \(PostgresMigrations.instanceLockClass)::oid
          AND objid = hashtext(current_schema() || '/' || $1)::oid
        """
}

/// A server session: its process id, and its start, which tells it from a later session given the same
/// process id.
struct PostgresSession: Equatable {
    var pid: Int32
    /// `backend_start` in MICROSECONDS since the epoch (``startSQL``).
    var startMicroseconds: Int64

    /// A `pg_stat_activity` row's `backend_start` in MICROSECONDS since the epoch.
    static let startSQL = "(extract(epoch FROM backend_start) * 1000000)::bigint"
}
