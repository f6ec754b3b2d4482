import Synchronization

/// An event that happens once; tasks wait for it without polling. A waiting task that is cancelled
/// stops waiting too.
public final class OneShotEvent: Sendable {
    private struct State {
        var happened = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextId = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// Whether ``signal()`` was called.
    public var hasHappened: Bool { state.withLock { $0.happened } }

    /// Makes the event happen: every waiter resumes, and later waits return at once.
    public func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.happened else { return [] }
            state.happened = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the event happened or the calling task is cancelled, whichever comes first.
    public func wait() async {
        let id = state.withLock { state -> Int in
            defer { state.nextId += 1 }
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.happened || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

extension OneShotEvent {
    /// Returns once the event happened, at `deadline` (a due-time timer), or when the calling task is
    /// cancelled, whichever comes first.
    /// - Returns: whether the event happened.
    @discardableResult
    public func wait(until deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait() }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
        return hasHappened
    }
}

extension Task where Success == Never, Failure == Never {
    /// Returns when the calling task is cancelled: what a ``Service`` that only holds something open
    /// (a listener, a thread of its own) awaits before it shuts that down.
    public static func waitUntilCancelled() async {
        await OneShotEvent().wait()
    }
}
