import Foundation

extension PostgresConnection {
    /// $1 an instance id: takes its advisory lock for the session, true when taken (two-key form, so it
    /// never meets the migration's one-key lock). The key is the hash of the schema and the id: advisory
    /// locks belong to the whole database, and relays of another schema on it are another deployment.
    static let instanceLockSQL = """
        SELECT pg_try_advisory_lock(\(PostgresMigrations.instanceLockClass), hashtext(current_schema() || '/' || $1))
        """

    /// Takes `id`'s advisory lock for this session, trying for up to 3 s: a session that just ended (the
    /// relay's last run, killed, or this connection's own lost one) may hold it a moment longer. True when
    /// taken; an id this session holds already is taken again (advisory locks stack).
    /// - Throws: ``RelayStore/StoreError`` of the statement.
    func takeInstanceLock(_ id: String) throws -> Bool {
        for attempt in 0...30 {
            if attempt > 0 { usleep(100_000) }
            if try query(Self.instanceLockSQL, id).bool(0, 0) { return true }
        }
        return false
    }
}
