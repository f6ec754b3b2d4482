import Foundation
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// WAL checkpoints (``SQLiteCheckpointer``): most of the copying happens in the background while the store is
/// open, and the WAL still restarts under a writer that never pauses.
@Suite(.timeLimit(.minutes(1))) struct CheckpointTests {
    /// Appends `pages` pages of 4 KiB (about) to a filler table, `perCommit` pages per transaction.
    private static func write(pages: Int, perCommit: Int, to store: SQLiteStore) async throws {
        for _ in 0..<(pages / perCommit) {
            try await store.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(perCommit)) "
                    + "INSERT INTO filler SELECT randomblob(3900) FROM n"
            )
        }
    }

    private static func bytes(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    /// The thresholds these tests use: small, so they write little (the store's defaults are 1,024 and 8,192).
    static let pages = (background: 128, restart: 1024)

    @Test func pagesPastTheBackgroundThresholdReachTheDatabaseFileWhileTheStoreIsOpen() async throws {
        let store = try SQLiteStore.temporary(checkpointPages: Self.pages)
        try await store.execute("CREATE TABLE filler (data BLOB)")
        // About 200 pages: past the background threshold (128), far below the restart one (1,024), where only
        // the store's own connection would checkpoint.
        try await Self.write(pages: 200, perCommit: 20, to: store)
        // The checkpoint runs in the background: wait for it (the suite's time limit bounds the wait). It
        // copies the rows committed when it started, about 140 pages; the file had a few.
        while try Self.bytes(store.path) < 100 * 4096 {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try Self.bytes(store.path) >= 100 * 4096)
        #expect(try await store.withConnection { db in try db.scalar("SELECT count(*) FROM filler") } == 200)
    }

    @Test func closingTheStoreLeavesNoWAL() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-relay-checkpoint-\(UUID().uuidString.lowercased())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("relay.sqlite").path
        var store: SQLiteStore? = try SQLiteStore(path: path, logger: .disabled())
        try await store?.execute("CREATE TABLE filler (data BLOB)")
        try await Self.write(pages: 1500, perCommit: 100, to: store!)  // a background checkpoint ran
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        // The checkpointer's connection closes first: the store's is the last, which checkpoints the whole WAL
        // and deletes it, as when the relay stops.
        store = nil
        // The last reference may be dropped a moment later by the store's own thread: wait for the close (the
        // suite's time limit bounds the wait).
        while FileManager.default.fileExists(atPath: path + "-wal") { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reopened = try SQLiteStore(path: path, logger: .disabled())
        #expect(try await reopened.withConnection { db in try db.scalar("SELECT count(*) FROM filler") } == 1500)
    }

    @Test func theWALRestartsUnderAWriterThatNeverPauses() async throws {
        let store = try SQLiteStore.temporary(checkpointPages: Self.pages)
        try await store.execute("CREATE TABLE filler (data BLOB)")
        // 3,000 pages in 150 commits, one right after the other. A WAL that never restarted would hold them
        // all (background checkpoints alone rarely copy the last frame of a WAL still being written); one that
        // restarts holds 1,024 pages and what was committed while a background checkpoint held it up.
        try await Self.write(pages: 3000, perCommit: 20, to: store)
        let walPages = try Self.bytes(store.path + "-wal") / (4096 + 24)
        #expect(walPages > 0)
        #expect(walPages < 2000)
        #expect(try await store.withConnection { db in try db.scalar("SELECT count(*) FROM filler") } == 3000)
    }
}
