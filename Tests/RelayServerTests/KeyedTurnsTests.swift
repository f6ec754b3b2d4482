import Synchronization
import Testing

@testable import RelayServer

/// One key's work runs a turn at a time, in order; another key's runs beside it; a key with nothing left is
/// forgotten.
@Suite struct KeyedTurnsTests {
    /// How many turns of each key run at once, and the most seen.
    final class Overlap: Sendable {
        private let state = Mutex<(running: [String: Int], most: [String: Int])>(([:], [:]))

        func begin(_ key: String) {
            state.withLock { state in
                state.running[key, default: 0] += 1
                state.most[key] = max(state.most[key] ?? 0, state.running[key]!)
            }
        }

        func end(_ key: String) { state.withLock { $0.running[key, default: 0] -= 1 } }

        var most: [String: Int] { state.withLock { $0.most } }
    }

    @Test func oneKeyAtATimeOthersBeside() async throws {
        let turns = KeyedTurns()
        let overlap = Overlap()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                let key = index % 3 == 0 ? "bob" : "alice"
                group.addTask {
                    try await turns.run(key) {
                        overlap.begin(key)
                        try await Task.sleep(for: .milliseconds(2))
                        overlap.end(key)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(overlap.most == ["alice": 1, "bob": 1])
        #expect(turns.keys == 0)
        // A turn that throws ends all the same.
        await #expect(throws: CancellationError.self) { try await turns.run("carol") { throw CancellationError() } }
        #expect(try await turns.run("carol") { 7 } == 7)
        #expect(turns.keys == 0)
    }
}
