import Dispatch
import Foundation
import RelayCore
import Synchronization
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// The SQLite store's gauge scans (``SQLiteGaugeScans``) run beside its thread, and a ``StorePool`` of it
/// (as `serve` makes) runs them without taking its member.
@Suite(.timeLimit(.minutes(1))) struct GaugeScanTests {
    typealias F = StoreFixtures

    @Test func theGaugesAreCountedWhileTheStoresThreadAndItsPoolAreBusy() async throws {
        let store = try SQLiteStore.temporary()
        let pool = StorePool(members: [store], logger: .disabled())
        try await pool.register(F.token(1), user: "u1", at: F.time(0))
        _ = try await pool.createNotification(F.notification(), recipients: .init(roomId: "room-1"))

        // A call through the pool holds its one member and the store's thread until `gate` opens: were the
        // counts calls like the others, they would wait for it.
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let busy = Task {
            try await pool.call { _ in
                await store.withConnection { _ in
                    entered.signal()
                    gate.wait()
                }
            }
        }
        await withCheckedContinuation { done in
            DispatchQueue.global().async {
                entered.wait()
                done.resume()
            }
        }

        // A watchdog opens the gate after 30 s, so that counts which wait fail the test instead of hanging it.
        let openedByWatchdog = Mutex(false)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            openedByWatchdog.withLock { $0 = true }
            gate.signal()
        }
        let devices = try await pool.deviceCounts()
        let outbox = try await pool.outboxCounts(now: F.time(2))
        let feedback = try await pool.pendingFeedbackCount()
        watchdog.cancel()
        #expect(!openedByWatchdog.withLock { $0 }, "the counts waited for the busy store")
        gate.signal()
        try await busy.value

        #expect(devices == [.live: 1, .retired: 0])
        #expect(outbox == ["app-a": OutboxCounts(pending: 1, due: 1, oldestDueAt: F.time(0))])
        #expect(feedback == 0)
    }
}
