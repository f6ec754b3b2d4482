import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// A request's store call that finds no connection free by its deadline is refused (503 above), and counts as
/// storage away only when no call answered while it waited: a queue of long calls on a real SQLite store is a
/// busy store, logged by nothing; a connection held by a call that does not end is storage away, logged once.
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

            // A call that holds the only connection and answers nothing while the next one waits: away.
            let (holding, began) = AsyncStream<Void>.makeStream()
            let held = Task {
                try await pool.call { _ in
                    began.yield()
                    try await Task.sleep(for: .seconds(1))
                }
            }
            for await _ in holding { break }
            #expect(await Self.refusal(pool, deadline: .milliseconds(200))?.code == .unavailable)
            #expect(!pool.health.up)
            #expect(lines.entries.map(\.message) == ["storage unavailable"])
            try await held.value
        }
    }
}
