import CSQLite
import Foundation

/// Damages a SQLite store's file the way a restore over a stale WAL does: the first bytes of the root page
/// of one table or index are overwritten, so a call that reads it fails `corrupt` while the rest of the file
/// answers. The file must be closed (no `-wal` beside it).
public enum SQLiteDamage {
    /// Overwrites the start of the root page of `name` (a table or index of the schema) in the file at `path`.
    public static func overwriteRootPage(of name: String, in path: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw TestFailure(description: "cannot open \(path)")
        }
        let page = try scalar(db, "SELECT rootpage FROM sqlite_schema WHERE name = '\(name)'")
        let size = try scalar(db, "PRAGMA page_size")
        guard page > 0, size > 0 else { throw TestFailure(description: "\(name) has no root page in \(path)") }
        // Closed before the write: the last connection's close folds a WAL into the file.
        sqlite3_close_v2(db)
        db = nil
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64((page - 1) * size))
        try file.write(contentsOf: Data(repeating: 0xFF, count: 64))
    }

    private static func scalar(_ db: OpaquePointer?, _ sql: String) throws -> Int64 {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW
        else { throw TestFailure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))") }
        return sqlite3_column_int64(statement, 0)
    }
}
