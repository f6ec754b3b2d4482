import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// The SQLite store's gauge scans (``SQLiteGaugeScans``) run beside its thread, not on it.
@Suite(.timeLimit(.minutes(1))) struct GaugeScanTests {
    typealias F = StoreFixtures

    @Test func theGaugesAreCountedWhileAWriteWaitsOnTheStoresThread() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-relay-gauges-\(UUID().lowercasedString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("relay.sqlite").path
        // A write waits up to 20 s for the file: the scans must not wait behind it.
        let store = try SQLiteStore(path: path, logger: .disabled(), busyTimeoutMilliseconds: 20_000)
        try await store.register(F.token(1), user: "u1", at: F.time(0))
        _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))

        // Another connection (another process, say) holds the write lock, so the store's next write waits on
        // the store's thread.
        let other = try SQLiteConnection(path: path)
        try other.execute("BEGIN IMMEDIATE")
        let write = Task { try await store.register(F.token(2), user: "u2", at: F.time(1)) }
        // Lets the write reach the store's thread first; were the scans queued there, they would answer only
        // after the write gave up (20 s), and the write would fail.
        try await Task.sleep(for: .milliseconds(200))
        let devices = try await store.deviceCounts()
        let outbox = try await store.outboxCounts(now: F.time(2))
        let feedback = try await store.pendingFeedbackCount()
        try other.execute("COMMIT")

        _ = try await write.value
        #expect(devices == [.live: 1, .retired: 0])
        #expect(outbox == ["app-a": OutboxCounts(pending: 1, due: 1, oldestDueAt: F.time(0))])
        #expect(feedback == 0)
        #expect(try await store.deviceCounts() == [.live: 2, .retired: 0])
    }
}
