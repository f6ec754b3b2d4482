import RelayTestSupport

/// What the PostgreSQL server spent its time on during a run, from `pg_stat_statements`: `relay-bench cluster
/// --statements FILE` writes the statements that took the most time (planning and execution), a line each.
/// The server must load the module: run the bench with
/// `RELAY_TEST_PG_OPTIONS='-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on'`.
enum StatementStats {
    /// Forgets what was counted so far (the seeding's and the warm-up's statements).
    static func reset(_ cluster: PostgresCluster) async throws {
        _ = try await cluster.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        _ = try await cluster.psql("SELECT pg_stat_statements_reset()")
    }

    /// The `limit` statements with the most planning and execution time since ``reset(_:)``: milliseconds in
    /// all, calls, rows, and the statement's first 160 characters.
    static func top(_ cluster: PostgresCluster, limit: Int = 20) async throws -> String {
        let header = "total_ms|plan_ms|calls|rows|statement\n"
        return try await header
            + cluster.psql(
                """
                SELECT round((total_exec_time + total_plan_time)::numeric, 1), round(total_plan_time::numeric, 1),
                    calls, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 160)
                FROM pg_stat_statements
                WHERE query NOT LIKE '%pg_stat_statements%'
                ORDER BY total_exec_time + total_plan_time DESC LIMIT \(limit)
                """
            )
    }
}
