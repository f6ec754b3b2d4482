import CSQLite
import Foundation
import RelayStore

/// Owns one prepared statement. Not `Sendable`: only the store's thread touches it.
///
/// Parameters are numbered from 1 (`?1`, `?2` in the SQL); columns from 0, of the current row
/// (``RelayStore/StoredRow``). Text and blobs are bound with SQLITE_TRANSIENT (SQLite copies them), so the
/// Swift values need not outlive the call.
final class SQLiteStatement: StoredRow {
    /// SQLite converts any column to the type asked for: a read never fails.
    typealias Failure = Never

    let raw: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws {
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else {
            throw connection.error(rc, call: "sqlite3_prepare_v3")
        }
        self.raw = raw
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(raw) }

    // MARK: Binding

    func bind(_ index: Int32, _ value: String?) throws {
        guard let value else { return try bindNull(index) }
        let rc = value.withCString { csqlite_bind_text_transient(raw, index, $0, Int32(value.utf8.count)) }
        try check(rc, "sqlite3_bind_text")
    }

    func bind(_ index: Int32, _ value: Int64?) throws {
        guard let value else { return try bindNull(index) }
        try check(sqlite3_bind_int64(raw, index, value), "sqlite3_bind_int64")
    }

    func bind(_ index: Int32, _ value: Int?) throws {
        try bind(index, value.map(Int64.init))
    }

    func bind(_ index: Int32, _ value: Bool?) throws {
        try bind(index, value.map { Int64($0 ? 1 : 0) })
    }

    /// Binds a date as UNIX epoch MILLISECONDS.
    func bind(_ index: Int32, _ value: Date?) throws {
        try bind(index, value.map(SQLiteStatement.milliseconds))
    }

    func bind(_ index: Int32, _ value: Data?) throws {
        guard let value else { return try bindNull(index) }
        let rc = value.withUnsafeBytes {
            csqlite_bind_blob_transient(raw, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count))
        }
        try check(rc, "sqlite3_bind_blob")
    }

    func bindNull(_ index: Int32) throws {
        try check(sqlite3_bind_null(raw, index), "sqlite3_bind_null")
    }

    // MARK: Stepping

    /// Advances to the next row: true if there is one, false when done.
    func step() throws -> Bool {
        let rc = sqlite3_step(raw)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(rc, call: "sqlite3_step")
        }
    }

    /// Runs to completion, ignoring rows.
    func run() throws {
        while try step() {}
    }

    /// Resets the statement and clears its bindings, ready for reuse.
    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    // MARK: Columns

    func isNull(_ column: Int) -> Bool { sqlite3_column_type(raw, Int32(column)) == SQLITE_NULL }

    func int64(_ column: Int) -> Int64 { sqlite3_column_int64(raw, Int32(column)) }

    /// An integer column read as a boolean (0 is false).
    func bool(_ column: Int) -> Bool { int64(column) != 0 }

    func string(_ column: Int) -> String {
        guard let text = sqlite3_column_text(raw, Int32(column)) else { return "" }
        let count = Int(sqlite3_column_bytes(raw, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func data(_ column: Int) -> Data {
        let count = Int(sqlite3_column_bytes(raw, Int32(column)))
        guard count > 0, let bytes = sqlite3_column_blob(raw, Int32(column)) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    // MARK: Helpers

    /// UNIX epoch milliseconds, rounded to the nearest.
    static func milliseconds(_ date: Date) -> Int64 { EpochMilliseconds.of(date) }

    static func date(_ milliseconds: Int64) -> Date { EpochMilliseconds.date(milliseconds) }

    private func check(_ rc: Int32, _ call: String) throws {
        guard rc == SQLITE_OK else { throw connection.error(rc, call: call) }
    }
}
