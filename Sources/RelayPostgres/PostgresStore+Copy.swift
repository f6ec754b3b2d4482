import Foundation
import RelayStore

/// A PostgreSQL store as the source or the destination of ``RelayStore/StoreCopy`` (rows as
/// ``RelayStore/StoreTable`` describes), read with `row_to_json` and written with
/// `jsonb_populate_recordset`, one statement a batch.
extension PostgresStore: StoreExport, StoreImport {
    /// Makes every later transaction of this connection read-only, so a copy's source is never written.
    public func makeReadOnly() throws {
        try db.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    }

    /// Holds the schema's lock exclusively (``PostgresConnection/holdSchemaExclusively()``), so no relay
    /// starts on the schema while the copy reads it; refused while a live relay holds it shared. A copy reads
    /// table by table, so one made while relays run misses what they write meanwhile, and the two stores
    /// would both send what was pending.
    /// - Throws: ``RelayStore/StoreError`` `.instanceInUse` when a relay serves the schema.
    public func refuseLiveRelays() throws {
        try db.holdSchemaExclusively()
    }

    public func exportBatch(_ table: StoreTable, after: Data?, limit: Int) async throws -> StoreBatch {
        let columns = table.columns.map { "\(Self.exportExpression(table, $0)) AS \($0)" }.joined(separator: ", ")
        let key = table.key.map { "s.\($0)" }.joined(separator: ", ")
        let start = table.key.map { Self.keyValue(table, $0) }.joined(separator: ", ")
        let rows =
            if let after {
                try db.query(
                    Self.exportSQL(table, columns: columns, filter: "WHERE (\(key)) > (\(start))", key: key, limit: 2),
                    String(decoding: after, as: UTF8.self),
                    limit
                )
            } else {
                try db.query(Self.exportSQL(table, columns: columns, filter: "", key: key, limit: 1), limit)
            }
        return StoreBatch(table: table, objects: rows.all.map { $0.string(0) })
    }

    private static func exportSQL(
        _ table: StoreTable,
        columns: String,
        filter: String,
        key: String,
        limit: Int
    )
        -> String
    {
        let outer = table.key.map { "t.\($0)" }.joined(separator: ", ")
        return """
            SELECT row_to_json(t)::text FROM (
                SELECT \(columns) FROM \(table.rawValue) AS s \(filter) ORDER BY \(key) LIMIT $\(limit)
            ) AS t ORDER BY \(outer)
            """
    }

    /// A key column of the row in `$1` (JSON), typed as the table has it.
    private static func keyValue(_ table: StoreTable, _ column: String) -> String {
        let text = "($1::jsonb ->> '\(column)')"
        if table == .notifications { return "\(text)::uuid" }
        return table.integerKey ? "\(text)::bigint" : text
    }

    /// How a column reads into its row object where PostgreSQL keeps it otherwise.
    private static func exportExpression(_ table: StoreTable, _ column: String) -> String {
        switch (table, column) {
        case (.idempotencyKeys, "request_hash"): "'\\x' || encode(s.request_hash, 'hex')"
        default: "s.\(column)"
        }
    }

    public func importedRowCount() async throws -> Int {
        let counts = StoreTable.allCases.map { "(SELECT count(*) FROM \($0.rawValue))" }
        return try db.query("SELECT " + counts.joined(separator: " + "))[0].int(0)
    }

    public func importBatch(_ batch: StoreBatch) async throws {
        let table = batch.table
        let columns = table.columns
        // A delivery of a SQLite store made before deliveries kept their user has none: it is no longer
        // pending, and only a claim reads the user.
        let values = columns.map { table == .deliveries && $0 == "user_id" ? "coalesce(r.user_id, '')" : "r.\($0)" }
        let overriding = table == .deliveries || table == .feedback ? "OVERRIDING SYSTEM VALUE" : ""
        try db.query(
            """
            INSERT INTO \(table.rawValue) (\(columns.joined(separator: ", "))) \(overriding)
            SELECT \(values.joined(separator: ", ")) FROM jsonb_populate_recordset(NULL::\(table.rawValue), $1::jsonb) AS r
            """,
            String(decoding: batch.rows, as: UTF8.self)
        )
    }

    /// Moves the id sequences past the copied ids, and gathers the planner's statistics of the new rows.
    public func finishImport() async throws {
        for table in ["deliveries", "feedback"] {
            try db.query(
                "SELECT setval(pg_get_serial_sequence($1, 'id'), coalesce(max(id), 0) + 1, false) FROM \(table)",
                table
            )
        }
        try db.execute("ANALYZE " + StoreTable.allCases.map(\.rawValue).joined(separator: ", "))
    }
}
