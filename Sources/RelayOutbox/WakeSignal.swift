import Dispatch
import Synchronization

/// Wakes one waiter early: ``wait(timeout:)`` returns at the first ``signal()``, at its timeout or when
/// its task is cancelled, whichever comes first. A signal with no waiter is kept for the next wait.
///
/// Timeouts share dispatch timers: a wait sets one only when no timer is set to fire by its deadline, and a
/// timer that fires before the current wait's deadline sets the next one for it. A fan-out waits several
/// hundred times a second, nearly always ended by a signal long before its timeout; a timer per wait cost
/// the dispatch threads two wake-ups each (setting it, and firing it to find the wait long over), on the
/// cores the sends need.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// When the waiter's timeout ends (`DispatchTime.uptimeNanoseconds`).
        var deadline: UInt64 = 0
        /// The earliest timer set and not yet fired (`DispatchTime.uptimeNanoseconds`).
        var timer: UInt64?

        /// Whether a timer must be set for the waiter's deadline (none is set to fire by then); if so, it
        /// counts as set.
        mutating func needsTimer() -> Bool {
            if let timer, timer <= deadline { return false }
            timer = deadline
            return true
        }
    }
    private let state = Mutex(State())

    /// Whether a signal is waiting for the next ``wait(timeout:)``.
    var isPending: Bool { state.withLock { $0.pending } }

    /// Whether a wait is parked (tests).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Takes a kept signal: true when one was waiting (the next ``wait(timeout:)`` then waits).
    func take() -> Bool {
        state.withLock { state in
            defer { state.pending = false }
            return state.pending
        }
    }

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
    /// One waiter at a time.
    func wait(timeout: Duration) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let deadline = (DispatchTime.now() + timeout.timeInterval).uptimeNanoseconds
                let (parked, timer) = state.withLock { state -> (Bool, UInt64?) in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return (false, nil)
                    }
                    state.waiter = continuation
                    state.deadline = deadline
                    return (true, state.needsTimer() ? deadline : nil)
                }
                guard parked else { return continuation.resume() }
                if let timer { setTimer(timer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    private func setTimer(_ deadline: UInt64) {
        DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: deadline)) {
            self.timerFired(deadline)
        }
    }

    /// Ends the wait whose deadline passed; sets the next timer for a wait that still has time.
    private func timerFired(_ fired: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (waiter, next) = state.withLock { state -> (CheckedContinuation<Void, Never>?, UInt64?) in
            if state.timer == fired { state.timer = nil }
            guard let waiter = state.waiter else { return (nil, nil) }
            if state.deadline <= now {
                state.waiter = nil
                return (waiter, nil)
            }
            return (nil, state.needsTimer() ? state.deadline : nil)
        }
        waiter?.resume()
        if let next { setTimer(next) }
    }
}
