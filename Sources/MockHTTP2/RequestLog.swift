import Synchronization

/// The answered requests of a mock: how many, the last ones kept in memory, and callers waiting for a count.
/// The loop thread records, any thread reads or waits.
///
/// The count and the waiters sit behind a Mutex of their own, of types that do not depend on `Record`, and
/// the records behind another, taken only when records are kept: counting a request (every request of a
/// benchmark) then costs no generic code at run time.
package final class RequestLog<Record: Sendable>: Sendable {
    private let counters = Mutex(RequestCounters())
    private let kept = Mutex<[Record]>([])
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
    package var records: [Record] { kept.withLock { $0 } }

    /// How many requests were answered since start or ``clear()``, kept or not.
    package var total: Int { counters.withLock { $0.total } }

    /// Forgets the requests and resets ``total``.
    package func clear() {
        kept.withLock { $0.removeAll() }
        counters.withLock { $0.total = 0 }
    }

    /// Counts one answered request, keeps `record` when keeping in memory, and resumes satisfied waiters.
    package func record(_ record: Record?) {
        if keepInMemory, let record {
            kept.withLock { records in
                if records.count >= limit { records.removeFirst(max(1, min(records.count, limit / 10))) }
                records.append(record)
            }
        }
        let ready = counters.withLock { $0.count() }
        for waiter in ready { waiter.resume() }
    }

    /// Suspends until at least `count` requests were answered (see ``total``), then returns ``records``.
    /// - Throws: the init's `timeoutError` when `timeout` passes first.
    package func wait(count: Int, timeout: Duration) async throws -> [Record] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Record], any Error>) in
            let waiter = RequestWaiter(count: count) { [self] in continuation.resume(returning: records) }
            guard let waiterId = counters.withLock({ $0.add(waiter) }) else {
                waiter.resume()
                return
            }
            Task { [self] in
                try? await Task.sleep(for: timeout)
                let (removed, total) = counters.withLock { ($0.waiters.removeValue(forKey: waiterId), $0.total) }
                if removed != nil { continuation.resume(throwing: timeoutError(timeout, count, total)) }
            }
        }
    }
}

/// A caller of ``RequestLog/wait(count:timeout:)``: the count it waits for, and how to wake it.
private struct RequestWaiter: Sendable {
    var count: Int
    var resume: @Sendable () -> Void
}

/// The count of a ``RequestLog`` and its waiters.
private struct RequestCounters {
    var total = 0
    var waiters: [UInt64: RequestWaiter] = [:]
    var nextWaiterId: UInt64 = 0

    /// Counts one request; returns the waiters it satisfies, removed.
    mutating func count() -> [RequestWaiter] {
        total += 1
        guard !waiters.isEmpty else { return [] }
        let ready = waiters.filter { $0.value.count <= total }
        for id in ready.keys { waiters[id] = nil }
        return Array(ready.values)
    }

    /// Registers `waiter` and returns its id, or nil when its count is already reached.
    mutating func add(_ waiter: RequestWaiter) -> UInt64? {
        guard total < waiter.count else { return nil }
        nextWaiterId += 1
        waiters[nextWaiterId] = waiter
        return nextWaiterId
    }
}
