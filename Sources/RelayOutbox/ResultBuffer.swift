import RelayStore
import Synchronization

/// Delivery results waiting to be recorded: workers append, the dispatcher's flusher takes them in batches.
final class ResultBuffer: Sendable {
    typealias Result = (deliveryId: Int64, outcome: DeliveryOutcome)

    private struct State {
        var results: [Result] = []
        var closed = false
    }
    private let state = Mutex(State())
    /// A batch this large is worth a flush at once.
    let flushAt: Int
    /// Signalled when the buffer reaches ``flushAt``.
    private let signal: WakeSignal

    init(flushAt: Int, signal: WakeSignal) {
        self.flushAt = max(1, flushAt)
        self.signal = signal
    }

    func append(_ deliveryId: Int64, _ outcome: DeliveryOutcome) {
        let full = state.withLock { state in
            state.results.append((deliveryId, outcome))
            return state.results.count == flushAt
        }
        if full { signal.signal() }
    }

    /// Everything appended so far, and whether ``close()`` was called before (so nothing more will come).
    func takeAll() -> (results: [Result], closed: Bool) {
        state.withLock { state in
            defer { state.results.removeAll(keepingCapacity: true) }
            return (state.results, state.closed)
        }
    }

    /// No more results will be appended; wakes the flusher for the last batch.
    func close() {
        state.withLock { $0.closed = true }
        signal.signal()
    }
}
