import Synchronization

/// Lends the indices `0..<count` (a ``StorePool``'s members) one holder at a time, in the order they were
/// asked for; a caller with a deadline gives up when none is free by then.
final class StoreSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Int?, Never>
    }

    private struct State {
        var free: [Int]
        var waiters: [Waiter] = []
        var nextId: UInt64 = 0
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(free: Array((0..<count).reversed())))
    }

    /// A free index, waiting for one to be released; nil when `deadline` passes first.
    func acquire(deadline: ContinuousClock.Instant?) async -> Int? {
        let free: Int?? = state.withLock { state in
            if let index = state.free.popLast() { return index }
            if let deadline, deadline <= .now { return .some(nil) }
            return nil
        }
        if let free { return free }
        return await withCheckedContinuation { continuation in
            let id = state.withLock { state in
                // Released between the two locks: take it at once.
                if let index = state.free.popLast() {
                    continuation.resume(returning: index)
                    return UInt64?.none
                }
                state.nextId += 1
                state.waiters.append(Waiter(id: state.nextId, continuation: continuation))
                return state.nextId
            }
            guard let id, let deadline else { return }
            Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                self.giveUp(id)
            }
        }
    }

    /// Hands `index` to the longest waiting caller, or back to the free ones.
    func release(_ index: Int) {
        let waiter: Waiter? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.free.append(index)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: index)
    }

    /// Callers waiting for a member.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Resumes waiter `id` with nil when it is still waiting (its deadline passed).
    private func giveUp(_ id: UInt64) {
        let waiter: Waiter? = state.withLock { state in
            guard let position = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: position)
        }
        waiter?.continuation.resume(returning: nil)
    }
}
