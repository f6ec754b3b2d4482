import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// A request's store call that finds no connection free by its deadline is refused (503 above) and says
/// nothing of the storage: on a real SQLite store, behind a queue of calls that answer or behind one call
/// longer than the deadline (a large room's webhook), the store is busy, and nothing logs it away.
@Suite struct StorePoolQueueTests {
    typealias F = StoreFixtures

    static func refusal(_ pool: StorePool, deadline: Duration) async -> StoreError? {
        do {
            try await StoreDeadline.$current.withValue(.now + deadline) { try await pool.checkWritable() }
            return nil
        } catch {
            return error as? StoreError
        }
    }

    @Test func aCallQueuedBehindCallsThatAnswerIsRefusedWithoutStorageGoingAway() async throws {
        try await F.withTemporaryDirectory { directory in
            let lines = MemoryLogHandler()
            let path = directory.appendingPathComponent("relay.sqlite").path
            let pool = StorePool(
                members: [try SQLiteStore(path: path, logger: .disabled())],
                logger: Logger(label: "test", handler: lines)
            )
            // Twenty calls of 50 ms each, queued before the request's call: the store answers all along.
            let queue = (0..<20).map { _ in
                Task {
                    try await pool.call { store in
                        try await store.checkWritable()
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
            while pool.waiting < 19 { try await Task.sleep(for: .milliseconds(5)) }
            let refused = await Self.refusal(pool, deadline: .milliseconds(300))
            #expect(refused?.code == .unavailable)
            for call in queue { try await call.value }
            #expect(pool.health.up)
            #expect(lines.entries.isEmpty, "\(lines.entries.map(\.message))")

            // One call holding the only connection past the request's deadline: still busy, not away.
            let (holding, began) = AsyncStream<Void>.makeStream()
            let held = Task {
                try await pool.call { _ in
                    began.yield()
                    try await Task.sleep(for: .seconds(1))
                }
            }
            for await _ in holding { break }
            #expect(await Self.refusal(pool, deadline: .milliseconds(200))?.code == .unavailable)
            try await held.value
            #expect(pool.health.up)
            #expect(lines.entries.isEmpty, "\(lines.entries.map(\.message))")
        }
    }
}
