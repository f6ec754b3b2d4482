import Foundation
import RelayCore
import RelayStore
import Synchronization

/// Delivery results waiting to be recorded. A send's completion hands its job's result over with
/// ``hand(_:_:lane:)``, with the lane the job holds a slot of; the flusher frees the slot (``DeliveryLanes``) once
/// the result is in the store (or its batch could not be written), so at any moment no more results are
/// unrecorded than there are send slots, and a crash sends again at most that many pushes. The flusher takes
/// everything handed over since its last write as one batch (group commit): results that arrive while a batch
/// is written make the next one, and between writes it waits for as many as it asks for, or a moment
/// (``wait(for:within:)``). With each batch come the notifications that a final result (not a retry) of the
/// batch belongs to, which may be done.
final class ResultBuffer: Sendable {
    typealias Result = (id: OutboxJob.ID, outcome: DeliveryOutcome)
    typealias Ended = (appId: String, notificationId: UUID)

    private struct State {
        var results: [Result] = []
        var ended: [Ended] = []
        var lanes: [LaneKey] = []
        var closed = false
        /// The count of results that ends the flusher's wait: set by each wait, none between a take and the
        /// next wait (a result handed over meanwhile wakes nobody; the wait finds it).
        var wakeAt = Int.max
    }
    private let state = Mutex(State())
    /// Signalled when the results reach the count the flusher waits for, and on ``close()``.
    let signal = WakeSignal()

    /// How many results wait for the flusher (tests).
    var count: Int { state.withLock { $0.results.count } }

    /// Hands `job`'s result over, to be recorded with the next batch; `lane` is the lane whose slot the job
    /// holds until then.
    func hand(_ job: OutboxJob, _ outcome: DeliveryOutcome, lane: LaneKey) {
        let reached = state.withLock { state in
            state.results.append((job.id, outcome))
            if case .delivery(let delivery) = job, !outcome.isRetry {
                state.ended.append((delivery.appId, delivery.notificationId))
            }
            state.lanes.append(lane)
            return state.results.count == state.wakeAt
        }
        if reached { signal.signal() }
    }

    /// Everything handed over so far, the lanes its jobs hold slots of (one per result), the notifications
    /// of its final results, and whether ``close()`` was called before (so nothing more will come).
    func takeAll() -> (results: [Result], lanes: [LaneKey], ended: [Ended], closed: Bool) {
        state.withLock { state in
            defer {
                state.wakeAt = .max
                state.results.removeAll(keepingCapacity: true)
                state.lanes.removeAll(keepingCapacity: true)
                state.ended.removeAll(keepingCapacity: true)
            }
            return (state.results, state.lanes, state.ended, state.closed)
        }
    }

    /// Waits until `count` results (at least one) are handed over since the last take, at once when they
    /// are; until ``close()`` is called; or for `timeout`.
    func wait(for count: Int, within timeout: Duration) async {
        let ready = state.withLock { state in
            state.wakeAt = max(1, count)
            return state.results.count >= state.wakeAt || state.closed
        }
        if !ready { await signal.wait(timeout: timeout) }
    }

    /// No more results will be handed over; wakes the flusher for the last batch.
    func close() {
        state.withLock { $0.closed = true }
        signal.signal()
    }
}
