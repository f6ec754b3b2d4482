import Foundation
import RelayCore
import RelayStore

/// A SQLite store's file opened for reading only (`SQLITE_OPEN_READONLY`), as the source of
/// ``StoreCopy``: it never writes, migrates or checkpoints the file. It holds the store's instance lock
/// (``SQLiteStore/claimInstance(_:)``) while open, so it refuses a store a live relay serves (a copy would
/// miss what the relay writes after it, and both would send what was pending) and no relay starts on the
/// store meanwhile; a store whose lock file is not there and cannot be made (a read-only folder) is one no
/// relay serves.
///
/// Threading: like ``SQLiteStore``, an actor on ONE dedicated thread.
public actor SQLiteReader: StoreExport {
    /// Where the database file is.
    public nonisolated let path: String
    private let db: SQLiteConnection
    private let executor: StoreThreadExecutor
    private let lock: InstanceLock?
    /// The instance id the lock file names while a copy reads the store.
    public static let instanceId = "storage-copy"

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens the existing store at `path`.
    /// - Throws: ``StoreError`` `.open` when there is no such file or it cannot be read, `.instanceInUse`
    ///   when a live relay serves it, `.corrupt` when it is not a database, `.migration` when its schema is
    ///   not the one this build writes (open it once with ``SQLiteStore`` to migrate it).
    public init(path: String) throws {
        let db = try Self.openExisting(path)
        do {
            lock = try InstanceLock(path: InstanceLock.path(of: path), database: path, instanceId: Self.instanceId)
        } catch let error as StoreError where error.code == .open {
            lock = nil
        } catch let error as StoreError where error.code == .instanceInUse {
            throw StoreError(
                code: .instanceInUse,
                message: "\(path) is served by a live relay, or another copy reads or writes it: stop it before "
                    + "copying (a copy made while a relay runs misses what it writes after, and both stores would "
                    + "send what was pending)"
            )
        }
        let version = Int(try db.scalar("PRAGMA user_version"))
        let current = SQLiteMigrations.steps.count
        guard version == current else {
            // Advice that works: `serve` migrates an older file and refuses a newer one.
            let advice =
                if version == 0 {
                    "not a PushRelay store"
                } else if version < current {
                    "an older schema: start this build's relay on it once (PUSH_RELAY_STORAGE_SQLITE_PATH=\(path) "
                        + "push-relay serve), stop it, and copy again"
                } else {
                    "written by a newer PushRelay, which this build cannot read: copy with that version"
                }
            throw StoreError(
                code: .migration,
                message: "\(path) has schema version \(version), this build \(current) (\(advice))"
            )
        }
        self.path = path
        self.db = db
        self.executor = StoreThreadExecutor(name: "relay-sqlite-ro")
    }

    deinit { executor.shutdown() }

    /// A read-only connection to the file at `path`, which must be there and not a directory: nothing is
    /// made where a store was expected.
    /// - Throws: ``StoreError`` `.open` when there is no such file, or SQLite's error when it cannot be read.
    static func openExisting(_ path: String) throws -> SQLiteConnection {
        guard FileManager.default.fileExists(atPath: path), !FileManager.default.isDirectory(atPath: path) else {
            throw StoreError(code: .open, message: "no SQLite store at \(path)")
        }
        return try SQLiteConnection(path: path, readOnly: true)
    }

    /// Whether the file at `path` holds a PushRelay store of any schema version (`PRAGMA user_version` set).
    /// - Throws: as ``openExisting(_:)``.
    public static func holdsStore(_ path: String) throws -> Bool {
        try openExisting(path).scalar("PRAGMA user_version") > 0
    }

    /// Nothing to confirm: the store's lock file was held from the start, so no relay ran on it.
    public func finishExport() async throws {}

    public func unfinishedCopy() async throws -> StoreError? { try db.unfinishedCopy() }

    public func exportBatch(_ table: StoreTable, after: Data?, limit: Int) async throws -> StoreBatch {
        try db.exportBatch(table, after: after, limit: limit)
    }
}
