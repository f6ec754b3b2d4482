import CSQLite

extension SQLiteStore {
    /// The version of SQLite linked, e.g. `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}
