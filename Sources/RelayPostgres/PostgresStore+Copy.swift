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

    /// Refuses a schema a live relay serves (``PostgresConnection/schemaIsFree()``: every relay holds the
    /// schema's lock shared) and records the session the copy reads in. A copy reads table by table, so one
    /// made while relays run misses what they write meanwhile, and the two stores would both send what was
    /// pending; ``finishExport()`` asks again at the end.
    /// - Throws: ``RelayStore/StoreError`` `.instanceInUse` when a relay serves the schema.
    public func refuseLiveRelays() throws {
        guard try db.schemaIsFree() else { throw Self.liveRelay("serves this schema of the database") }
        db.exportSession = try db.currentSession()
    }

    /// Fails the copy when a relay started on the schema while it read, or its session was lost since
    /// ``refuseLiveRelays()`` recorded it (a new one is not read-only, and relays may have written in the gap).
    public func finishExport() async throws {
        guard try db.schemaIsFree() else { throw Self.liveRelay("started on this schema during the copy") }
        if let session = db.exportSession, try db.currentSession() != session {
            throw StoreError(
                code: .io,
                message: "the connection to the source was lost during the copy: drop the destination and copy again"
            )
        }
    }

    public func unfinishedCopy() async throws -> StoreError? {
        try db.query(StoreCopy.Mark.readSQL).all.first.map {
            StoreCopy.Mark.refusal(startedAt: try $0.int64(0), fresh: "drop and create this schema")
        }
    }

    private static func liveRelay(_ what: String) -> StoreError {
        StoreError(
            code: .instanceInUse,
            message: "a live relay \(what): stop every relay on it before copying (a copy made while relays "
                + "run misses what they write after, and both stores would send what was pending)"
        )
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

    /// Refuses a schema a live relay serves (it would send the rows as they arrive, and take ids the copy
    /// writes), then writes the mark, which no relay starts past.
    public func beginImport() async throws {
        guard try db.schemaIsFree() else { throw Self.liveRelay("serves this schema of the database") }
        try db.query(StoreCopy.Mark.writeSQL, EpochMilliseconds.of(now))
    }

    /// Moves the id sequences past the copied ids, gathers the planner's statistics of the new rows, and
    /// deletes the mark.
    public func finishImport() async throws {
        for table in ["deliveries", "feedback"] {
            try db.query(
                "SELECT setval(pg_get_serial_sequence($1, 'id'), coalesce(max(id), 0) + 1, false) FROM \(table)",
                table
            )
        }
        try db.execute("ANALYZE " + StoreTable.allCases.map(\.rawValue).joined(separator: ", "))
        try db.execute(StoreCopy.Mark.deleteSQL)
    }
}
