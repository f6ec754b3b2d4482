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
    typealias Ended = (appId: String, notificationId: UUID)

    /// What the flusher takes at once: the results of deliveries and of badge updates, each kind as the
    /// store records it; the lanes their jobs hold slots of (one per result); and the notifications of its
    /// final results.
    struct Batch {
        var deliveries: [(deliveryId: Int64, outcome: DeliveryOutcome)] = []
        var badgeUpdates: [(updateId: Int64, outcome: DeliveryOutcome)] = []
        var lanes: [LaneKey] = []
        var ended: [Ended] = []

        /// How many results the batch holds.
        var count: Int { lanes.count }

        /// Empties the arrays, keeping their storage for the next batch.
        mutating func removeAll() {
            deliveries.removeAll(keepingCapacity: true)
            badgeUpdates.removeAll(keepingCapacity: true)
            lanes.removeAll(keepingCapacity: true)
            ended.removeAll(keepingCapacity: true)
        }
    }

    private struct State {
        var batch = Batch()
        var closed = false
        /// The count of results that ends the flusher's wait: set by each wait, none between a take and the
        /// next wait (a result handed over meanwhile wakes nobody; the wait finds it).
        var wakeAt = Int.max
    }
    private let state = Mutex(State())
    /// Signalled when the results reach the count the flusher waits for, and on ``close()``.
    let signal = WakeSignal()

    /// How many results wait for the flusher (tests).
    var count: Int { state.withLock { $0.batch.count } }

    /// Hands `job`'s result over, to be recorded with the next batch; `lane` is the lane whose slot the job
    /// holds until then. A nil `outcome` records nothing (``QueuedJob/records(_:at:)``): the slot is freed
    /// with the batch all the same.
    func hand(_ job: OutboxJob, _ outcome: DeliveryOutcome?, lane: LaneKey) {
        let reached = state.withLock { state in
            switch (job, outcome) {
            case (_, nil):
                break
            case (.delivery(let delivery), let outcome?):
                state.batch.deliveries.append((delivery.deliveryId, outcome))
                if !outcome.isRetry { state.batch.ended.append((delivery.appId, delivery.notificationId)) }
            case (.badgeUpdate(let update), let outcome?):
                state.batch.badgeUpdates.append((update.updateId, outcome))
            }
            state.batch.lanes.append(lane)
            return state.batch.count == state.wakeAt
        }
        if reached { signal.signal() }
    }

    /// Puts everything handed over so far into `batch`, whose last contents are dropped and whose storage
    /// takes the next results: the flusher passes the same batch each time, so the two sets of arrays trade
    /// places and a batch allocates nothing once they have grown.
    /// - Returns: whether ``close()`` was called before (so nothing more will come).
    func takeAll(into batch: inout Batch) -> Bool {
        batch.removeAll()
        return state.withLock { state in
            swap(&state.batch, &batch)
            state.wakeAt = .max
            return state.closed
        }
    }

    /// Waits until `count` results (at least one) are handed over since the last take, at once when they
    /// are; until ``close()`` is called; or for `timeout`.
    func wait(for count: Int, within timeout: Duration) async {
        let ready = state.withLock { state in
            state.wakeAt = max(1, count)
            return state.batch.count >= state.wakeAt || state.closed
        }
        if !ready { await signal.wait(timeout: timeout) }
    }

    /// No more results will be handed over; wakes the flusher for the last batch.
    func close() {
        state.withLock { $0.closed = true }
        signal.signal()
    }
}
