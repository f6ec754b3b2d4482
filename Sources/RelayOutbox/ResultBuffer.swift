import RelayStore
import Synchronization

/// Delivery results waiting to be recorded. A worker hands its job's result over with ``record(_:_:)`` and
/// is let go once the result is in the store (or its batch could not be written): a send slot is freed
/// only then, so at any moment no more results are unrecorded than there are workers, and a crash sends
/// again at most that many pushes. The flusher takes everything handed over since its last write as one
/// batch (group commit): results that arrive while a batch is written make the next one.
final class ResultBuffer: Sendable {
    typealias Result = (id: OutboxJob.ID, outcome: DeliveryOutcome)

    private struct State {
        var results: [Result] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        var closed = false
    }
    private let state = Mutex(State())
    /// Signalled when a result arrives in an empty buffer, and on ``close()``.
    private let signal: WakeSignal

    init(signal: WakeSignal) {
        self.signal = signal
    }

    /// Hands a result over; returns once the flusher has written the batch that holds it.
    func record(_ id: OutboxJob.ID, _ outcome: DeliveryOutcome) async {
        await withCheckedContinuation { continuation in
            let first = state.withLock { state in
                state.results.append((id, outcome))
                state.waiters.append(continuation)
                return state.results.count == 1
            }
            if first { signal.signal() }
        }
    }

    /// Everything handed over so far, the workers waiting on it, and whether ``close()`` was called before
    /// (so nothing more will come).
    func takeAll() -> (results: [Result], waiters: [CheckedContinuation<Void, Never>], closed: Bool) {
        state.withLock { state in
            defer {
                state.results.removeAll(keepingCapacity: true)
                state.waiters.removeAll(keepingCapacity: true)
            }
            return (state.results, state.waiters, state.closed)
        }
    }

    /// No more results will be handed over; wakes the flusher for the last batch.
    func close() {
        state.withLock { $0.closed = true }
        signal.signal()
    }
}
