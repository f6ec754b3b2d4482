import Foundation

/// Copies every table ``StoreTable`` names from one store into an empty one, a batch at a time, so memory
/// stays bounded by the batch size whatever the size of the stores. Each batch is one transaction of the
/// destination; the source is only read.
public struct StoreCopy: Sendable {
    /// A copy refused before anything was written.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// Rows read from the source and written to the destination per batch.
    public var batchSize: Int

    public init(batchSize: Int = 1000) {
        self.batchSize = max(1, batchSize)
    }

    /// Copies `source` into `destination` and returns the rows copied per table.
    /// - Parameter progress: called after each batch with its table and the table's rows copied so far.
    /// - Throws: ``Refusal`` when the destination holds rows; ``StoreError`` from either store (the batches
    ///   before the failing one stay written).
    public func run(
        from source: any StoreExport,
        to destination: any StoreImport,
        progress: (StoreTable, Int) -> Void = { _, _ in }
    ) async throws -> [StoreTable: Int] {
        let existing = try await destination.importedRowCount()
        guard existing == 0 else {
            throw Refusal(description: "the destination is not empty (\(existing) rows): copy into a new database")
        }
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
