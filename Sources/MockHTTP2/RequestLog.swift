import Synchronization

/// The answered requests of a mock: how many, the last ones kept in memory, and callers waiting for a count.
/// Every field sits behind one Mutex; the loop thread records, any thread reads or waits.
package final class RequestLog<Record: Sendable>: Sendable {
    private struct Waiter {
        var count: Int
        var continuation: CheckedContinuation<[Record], any Error>
    }

    private struct State {
        var records: [Record] = []
        var total = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterId: UInt64 = 0
    }

    private let state = Mutex(State())
    private let keepInMemory: Bool
    private let limit: Int
    private let timeoutError: @Sendable (_ waited: Duration, _ count: Int, _ total: Int) -> any Error

    /// - Parameters:
    ///   - keepInMemory: whether ``records`` keeps requests (off for benchmarks, so memory stays flat).
    ///   - limit: most requests kept; the oldest tenth goes when it is reached.
    ///   - timeoutError: what ``wait(count:timeout:)`` throws when its time runs out.
    package init(
        keepInMemory: Bool,
        limit: Int,
        timeoutError: @escaping @Sendable (_ waited: Duration, _ count: Int, _ total: Int) -> any Error
    ) {
        self.keepInMemory = keepInMemory
        self.limit = max(1, limit)
        self.timeoutError = timeoutError
    }

    /// The requests kept, oldest first.
    package var records: [Record] { state.withLock { $0.records } }

    /// How many requests were answered since start or ``clear()``, kept or not.
    package var total: Int { state.withLock { $0.total } }

    /// Forgets the requests and resets ``total``.
    package func clear() {
        state.withLock {
            $0.records.removeAll()
            $0.total = 0
        }
    }

    /// Counts one answered request, keeps `record` when keeping in memory, and resumes satisfied waiters.
    package func record(_ record: Record?) {
        let resumed: [(CheckedContinuation<[Record], any Error>, [Record])] = state.withLock { state in
            state.total += 1
            if let record, keepInMemory {
                if state.records.count >= limit {
                    state.records.removeFirst(max(1, min(state.records.count, limit / 10)))
                }
                state.records.append(record)
            }
            guard !state.waiters.isEmpty else { return [] }
            let total = state.total
            let ready = state.waiters.filter { $0.value.count <= total }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map { ($0.continuation, state.records) }
        }
        for (continuation, records) in resumed { continuation.resume(returning: records) }
    }

    /// Suspends until at least `count` requests were answered (see ``total``), then returns ``records``.
    /// - Throws: the init's `timeoutError` when `timeout` passes first.
    package func wait(count: Int, timeout: Duration) async throws -> [Record] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Record], any Error>) in
            let waiterId: UInt64? = state.withLock { state in
                if state.total >= count {
                    continuation.resume(returning: state.records)
                    return nil
                }
                state.nextWaiterId += 1
                state.waiters[state.nextWaiterId] = Waiter(count: count, continuation: continuation)
                return state.nextWaiterId
            }
            guard let waiterId else { return }
            Task { [self] in
                try? await Task.sleep(for: timeout)
                let (waiter, total) = state.withLock { ($0.waiters.removeValue(forKey: waiterId), $0.total) }
                waiter?.continuation.resume(throwing: timeoutError(timeout, count, total))
            }
        }
    }
}
