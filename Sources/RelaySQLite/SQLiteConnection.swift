import CSQLite
import Foundation
import RelayStore

/// Owns one SQLite connection and its cache of prepared statements. Not `Sendable`: only the store's thread
/// touches it.
final class SQLiteConnection {
    let raw: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// A directory to delete once the connection is closed (temporary stores).
    var removeOnClose: URL?
    /// The object a `sqlite3_wal_hook` callback of this connection points to (``SQLiteCheckpointer``), kept
    /// until the hook is removed at close.
    var walHookOwner: AnyObject?

    /// Opens (creating if needed) the database file at `path` in multi-thread mode (the connection is used by
    /// one thread at a time); with `readOnly`, opens an existing file for reading only.
    /// - Throws: ``StoreError`` `.open` when the file cannot be opened or created.
    init(path: String, readOnly: Bool = false) throws {
        var raw: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &raw, flags, nil)
        guard rc == SQLITE_OK, let raw else {
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(raw)
            throw StoreError(code: .open, message: "sqlite3_open_v2(\(path)): \(message) (\(rc))")
        }
        self.raw = raw
    }

    private var isClosed = false

    deinit { close() }

    /// Finalizes the cached statements and closes the connection (checkpointing the WAL). Idempotent; the
    /// connection must not be used afterwards.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()  // finalize every statement before closing
        if walHookOwner != nil {
            sqlite3_wal_hook(raw, nil, nil)
            walHookOwner = nil
        }
        sqlite3_close_v2(raw)
        if let removeOnClose { try? FileManager.default.removeItem(at: removeOnClose) }
    }

    /// Runs one or more statements without parameters or results (schema, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws {
        let rc = sqlite3_exec(raw, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, call: "sqlite3_exec") }
    }

    /// The first column of the first row of `sql`, as an integer (pragmas, counts).
    func scalar(_ sql: String) throws -> Int64 {
        try withStatement(sql) { statement in
            guard try statement.step() else { return 0 }
            return statement.int64(0)
        }
    }

    /// Runs `body` with the cached prepared statement for `sql` (prepared on first use), then resets it.
    func withStatement<T>(_ sql: String, _ body: (SQLiteStatement) throws -> T) throws -> T {
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try SQLiteStatement(connection: self, sql: sql)
            statements[sql] = statement
        }
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction (the write lock is taken up front, so the transaction
    /// never fails half-way on a lock upgrade): commits if it returns, rolls back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(raw) == 0 { _ = sqlite3_exec(raw, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes64(raw)) }

    /// The rowid of the last row inserted on this connection (`sqlite3_last_insert_rowid`).
    var lastInsertRowId: Int64 { sqlite3_last_insert_rowid(raw) }

    /// A ``StoreError`` for result code `rc` of `call`, with SQLite's message.
    func error(_ rc: Int32, call: String) -> StoreError {
        let message = String(cString: sqlite3_errmsg(raw))
        // A full disk rolls the transaction back: nothing of it is kept.
        return StoreError(
            code: Self.code(rc),
            message: "\(call): \(message) (\(rc))",
            committedNothing: rc & 0xFF == SQLITE_FULL
        )
    }

    /// The ``StoreError/Code`` of an SQLite result code (primary code = low 8 bits of an extended one).
    static func code(_ rc: Int32) -> StoreError.Code {
        switch rc & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_CONSTRAINT: .constraint
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        case SQLITE_CANTOPEN: .open
        case SQLITE_IOERR, SQLITE_FULL: .io
        case SQLITE_READONLY: .readOnly
        case SQLITE_NOTFOUND: .notFound
        default: .other
        }
    }
}
