import Foundation
import RelayStore

/// A SQLite store as the source or the destination of ``StoreCopy`` (rows as ``StoreTable`` describes).
/// The read-only source of `push-relay storage copy` is a ``SQLiteReader``.
extension SQLiteStore: StoreExport, StoreImport {
    public func exportBatch(_ table: StoreTable, after: Data?, limit: Int) async throws -> StoreBatch {
        try db.exportBatch(table, after: after, limit: limit)
    }

    /// Nothing to confirm: a store open in this process is read by its own connection, whose writes
    /// (this process's) the copy's caller orders.
    public func finishExport() async throws {}

    public func unfinishedCopy() async throws -> StoreError? { try db.unfinishedCopy() }

    public func importedRowCount() async throws -> Int {
        try db.importedRowCount()
    }

    public func importBatch(_ batch: StoreBatch) async throws {
        try db.importBatch(batch)
    }

    public func beginImport() async throws {
        try db.withStatement(StoreCopy.Mark.writeSQL) { statement in
            try statement.bind(1, EpochMilliseconds.of(now))
            _ = try statement.step()
        }
    }

    /// A new delivery or feedback row takes the id after the largest (INTEGER PRIMARY KEY): only the mark
    /// goes.
    public func finishImport() async throws {
        try db.execute(StoreCopy.Mark.deleteSQL)
    }
}
