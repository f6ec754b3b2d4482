import Foundation

/// Copies every table ``StoreTable`` names from one store into an empty one, a batch at a time, so memory
/// stays bounded by the batch size whatever the size of the stores. Each batch is one transaction of the
/// destination; the source is only read.
public struct StoreCopy: Sendable {
    /// A copy refused before anything was written.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// The row a copy writes into its destination before its first batch and deletes after its last
    /// (`store_copies`, one row at most): a store holding it is being copied into, or a copy into it stopped
    /// part way (killed, interrupted), and no relay serves it (``Store/claimInstance(_:)``).
    public enum Mark {
        /// Writes the mark: $1 the time the copy starts (epoch MILLISECONDS).
        public static let writeSQL = """
            INSERT INTO store_copies (id, started_at) VALUES (1, $1)
            ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at
            """
        /// Deletes the mark.
        public static let deleteSQL = "DELETE FROM store_copies"
        /// The time the marked copy started (epoch MILLISECONDS); no row without a mark.
        public static let readSQL = "SELECT started_at FROM store_copies"

        /// Why a relay does not serve a store whose copy started at `startedAt` (epoch MILLISECONDS) and has
        /// not finished; `fresh` says how to make the store new again on its engine.
        public static func refusal(startedAt: Int64, fresh: String) -> StoreError {
            let started = Date(timeIntervalSince1970: Double(startedAt) / 1000).formatted(.iso8601)
            return StoreError(
                code: .copyUnfinished,
                message: "a 'push-relay storage copy' into this store started at \(started) and has not finished: "
                    + "it holds only part of the source. Let the copy end; if it was stopped, \(fresh) and copy "
                    + "again"
            )
        }
    }

    /// Rows read from the source and written to the destination per batch.
    public var batchSize: Int

    public init(batchSize: Int = 1000) {
        self.batchSize = max(1, batchSize)
    }

    /// Copies `source` into `destination` and returns the rows copied per table.
    /// - Parameters:
    ///   - began: called once the destination took the copy's mark, its first write: a failure before it
    ///     left the destination as it was.
    ///   - progress: called after each batch with its table and the table's rows copied so far.
    /// - Throws: ``Refusal`` when the destination holds rows; ``StoreError`` `.copyUnfinished` when the source
    ///   is itself a copy that has not finished; ``StoreError`` from either store (the batches before the
    ///   failing one stay written).
    public func run(
        from source: any StoreExport,
        to destination: any StoreImport,
        began: () -> Void = {},
        progress: (StoreTable, Int) -> Void = { _, _ in }
    ) async throws -> [StoreTable: Int] {
        if let unfinished = try await source.unfinishedCopy() {
            throw StoreError(code: unfinished.code, message: "the source: " + unfinished.message)
        }
        let existing = try await destination.importedRowCount()
        guard existing == 0 else {
            throw Refusal(description: "the destination is not empty (\(existing) rows): copy into a new database")
        }
        try await destination.beginImport()
        began()
        var counts: [StoreTable: Int] = [:]
        for table in StoreTable.allCases {
            var copied = 0
            var after: Data?
            while true {
                let batch = try await source.exportBatch(table, after: after, limit: batchSize)
                if batch.count > 0 { try await destination.importBatch(batch) }
                copied += batch.count
                progress(table, copied)
                guard batch.count == batchSize, let last = batch.last else { break }
                after = last
            }
            counts[table] = copied
        }
        try await source.finishExport()
        try await destination.finishImport()
        return counts
    }
}
