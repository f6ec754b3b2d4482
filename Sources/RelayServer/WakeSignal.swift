import Synchronization

/// Wakes one waiter early: ``wait(timeout:)`` returns at the first ``signal()``, at its timeout or when
/// its task is cancelled, whichever comes first. A signal with no waiter is kept for the next wait.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// Whether a signal is waiting for the next ``wait(timeout:)``.
    var isPending: Bool { state.withLock { $0.pending } }

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

    func wait(timeout: Duration) async {
        // A signal already kept: no timer, no child tasks.
        let kept = state.withLock { state -> Bool in
            defer { state.pending = false }
            return state.pending
        }
        if kept { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let resumeNow = self.state.withLock { state -> Bool in
                            if state.pending || Task.isCancelled {
                                state.pending = false
                                return true
                            }
                            state.waiter = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
