import Foundation
import Testing

@testable import RelayStore

/// WAL checkpoints happen on the checkpointer's own connection and thread (the store's connection has none
/// of its own any more): pages written past the threshold reach the database file while the store is open.
@Suite(.timeLimit(.minutes(1))) struct CheckpointTests {
    @Test func pagesPastTheThresholdAreCheckpointedWhileTheStoreIsOpen() async throws {
        let store = try SQLiteStore.temporary()
        // About 12,000 pages of 4 KiB in 60 commits, past the 8,192-page threshold.
        try await store.execute("CREATE TABLE filler (data BLOB)")
        for _ in 0..<60 {
            try await store.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) "
                    + "INSERT INTO filler SELECT randomblob(3900) FROM n"
            )
        }
        func databaseBytes() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int ?? 0
        }
        // The checkpoint runs in the background: wait for it (the suite's time limit bounds the wait).
        while try databaseBytes() < 8192 * 4096 {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try databaseBytes() >= 8192 * 4096)
        #expect(try await store.withConnection { db in try db.scalar("SELECT count(*) FROM filler") } == 12_000)
    }
}
