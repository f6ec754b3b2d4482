import Dispatch
import Synchronization

/// Wakes one waiter early: ``wait(timeout:)`` returns at the first ``signal()``, at its timeout or when
/// its task is cancelled, whichever comes first. A signal with no waiter is kept for the next wait.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Counts waits, so a timeout fires only for the wait that set it.
        var generation: UInt64 = 0
    }
    private let state = Mutex(State())

    /// Whether a signal is waiting for the next ``wait(timeout:)``.
    var isPending: Bool { state.withLock { $0.pending } }

    /// Whether a wait is parked (tests).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the first signal (or at once for a kept one), at `timeout`, or when the task is cancelled.
    /// One waiter at a time. The timeout is a dispatch timer that is not cancelled: when it fires after the
    /// wait ended, its generation no longer matches and it does nothing. (A task group racing a
    /// `Task.sleep` against the signal cost two child tasks per wait, several hundred times a second in a
    /// fan-out.)
    func wait(timeout: Duration) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let generation = state.withLock { state -> UInt64? in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return nil
                    }
                    state.generation &+= 1
                    state.waiter = continuation
                    return state.generation
                }
                guard let generation else { return continuation.resume() }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval) {
                    self.resumeWaiter(ifGeneration: generation)
                }
            }
        } onCancel: {
            resumeWaiter(ifGeneration: nil)
        }
    }

    /// Resumes the waiter, if any; with a generation, only the wait that started it.
    private func resumeWaiter(ifGeneration generation: UInt64?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter, generation == nil || generation == state.generation else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
