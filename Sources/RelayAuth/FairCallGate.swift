import RelayCore
import Synchronization

/// Shares a fixed number of call slots among client ranges: a caller that finds every slot taken waits (for
/// at most ``maxWait``, at most ``waitersPerKey`` of a range at once), and each freed slot goes to the
/// waiting range that holds the fewest slots, ties in the order the ranges started waiting.
///
/// So a range that holds no slot is served at the next slot freed unless other ranges holding none wait
/// before it: while R ranges flood, a new range's caller waits for at most R + 1 of the calls under way to
/// end. Waiters are bounded (``maxWaiters`` in all), and so is the table of slots held (one entry per range
/// holding one). A waiter whose ``maxWait`` passed, or whose task is cancelled, gets no slot.
public final class FairCallGate<Key: Hashable & Sendable>: Sendable {
    /// Slots held at most at once.
    public let slots: Int
    /// Callers of one range waiting at most at once.
    public let waitersPerKey: Int
    /// Callers waiting at most at once, all ranges together.
    public let maxWaiters: Int
    /// The longest a caller waits for a slot.
    public let maxWait: Duration

    private struct Waiter {
        let id: UInt64
        let deadline: Duration
        let continuation: CheckedContinuation<Bool, Never>
        var timer: Task<Void, Never>?
    }

    /// What ``enter(_:id:continuation:)`` does with a caller.
    private enum Entry { case granted, queued, refused }

    private struct State {
        /// Slots held, by range: only ranges holding at least one.
        var held: [Key: Int] = [:]
        var busy = 0
        /// Each waiting range's callers, oldest first.
        var waiting: [Key: [Waiter]] = [:]
        /// Ranges with callers waiting, in the order they started waiting (or were last served).
        var ring: [Key] = []
        var waiterCount = 0
        var nextId: UInt64 = 0

        /// Removes the waiter `id` of `key`, if it still waits.
        mutating func remove(_ id: UInt64, of key: Key) -> Waiter? {
            guard var queue = waiting[key], let index = queue.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = queue.remove(at: index)
            waiterCount -= 1
            if queue.isEmpty {
                waiting[key] = nil
                ring.removeAll { $0 == key }
            } else {
                waiting[key] = queue
            }
            return waiter
        }

        /// Every waiter whose deadline is not after `now`, removed.
        mutating func expired(now: Duration) -> [Waiter] {
            guard waiterCount > 0 else { return [] }
            var gone: [Waiter] = []
            for (key, queue) in waiting {
                for waiter in queue where waiter.deadline <= now { gone.append(remove(waiter.id, of: key)!) }
            }
            return gone
        }
    }

    private let time: any TimeSource
    private let state = Mutex(State())

    public init(slots: Int, waitersPerKey: Int, maxWaiters: Int, maxWait: Duration, time: any TimeSource) {
        self.slots = max(1, slots)
        self.waitersPerKey = max(0, waitersPerKey)
        self.maxWaiters = max(0, maxWaiters)
        self.maxWait = maxWait
        self.time = time
    }

    /// Slots held now.
    public var busy: Int { state.withLock { $0.busy } }
    /// Callers waiting now.
    public var waiters: Int { state.withLock { $0.waiterCount } }

    /// Takes a slot for `key`: at once when one is free and nobody waits, else after waiting for one.
    /// - Returns: true with a slot, to be given back with ``release(_:)``; false without (every slot taken
    ///   and no room to wait, ``maxWait`` passed, or the task was cancelled).
    public func acquire(_ key: Key) async -> Bool {
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        return await withTaskCancellationHandler {
            let granted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                enter(key, id: id, continuation: continuation)
            }
            return granted
        } onCancel: {
            let waiter = state.withLock { $0.remove(id, of: key) }
            waiter?.timer?.cancel()
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Gives back a slot of `key` taken by ``acquire(_:)``: it goes on to a waiting caller, if any.
    public func release(_ key: Key) {
        let now = time.monotonic
        let (expired, next) = state.withLock { state in
            let expired = state.expired(now: now)
            let held = (state.held[key] ?? 1) - 1
            state.held[key] = held > 0 ? held : nil
            state.busy -= 1
            return (expired, Self.handOver(&state))
        }
        for waiter in expired { Self.finish(waiter, granted: false) }
        if let next { Self.finish(next, granted: true) }
    }

    /// Resumes, without a slot, every caller whose ``maxWait`` passed by the time source's clock.
    public func expireWaiters() {
        let now = time.monotonic
        let expired = state.withLock { $0.expired(now: now) }
        for waiter in expired { Self.finish(waiter, granted: false) }
    }

    /// Grants a slot at once, queues the caller, or refuses it.
    private func enter(_ key: Key, id: UInt64, continuation: CheckedContinuation<Bool, Never>) {
        let now = time.monotonic
        let (entry, expired) = state.withLock { state -> (Entry, [Waiter]) in
            let expired = state.expired(now: now)
            if state.busy < slots && state.waiterCount == 0 {
                state.busy += 1
                state.held[key, default: 0] += 1
                return (.granted, expired)
            }
            let queued = state.waiting[key]?.count ?? 0
            guard !Task.isCancelled, queued < waitersPerKey, state.waiterCount < maxWaiters else {
                return (.refused, expired)
            }
            state.waiting[key, default: []]
                .append(Waiter(id: id, deadline: now + maxWait, continuation: continuation, timer: nil))
            if queued == 0 { state.ring.append(key) }
            state.waiterCount += 1
            return (.queued, expired)
        }
        for waiter in expired { Self.finish(waiter, granted: false) }
        switch entry {
        case .granted: continuation.resume(returning: true)
        case .refused: continuation.resume(returning: false)
        case .queued:
            // The clock that ends the wait: it only asks the time source, so a manual one decides in tests.
            let timer = Task { [maxWait] in
                guard (try? await Task.sleep(for: maxWait)) != nil else { return }
                self.expireWaiters()
            }
            let stillWaiting = state.withLock { state in
                guard let index = state.waiting[key]?.firstIndex(where: { $0.id == id }) else { return false }
                state.waiting[key]![index].timer = timer
                return true
            }
            if !stillWaiting { timer.cancel() }
        }
    }

    /// Hands a freed slot to the waiting range holding the fewest slots (the earliest in ``State/ring`` of
    /// those), if any caller waits; the slot stays taken for it.
    private static func handOver(_ state: inout State) -> Waiter? {
        guard !state.ring.isEmpty else { return nil }
        var chosen = 0
        for (index, key) in state.ring.enumerated()
        where state.held[key, default: 0] < state.held[state.ring[chosen], default: 0] {
            chosen = index
        }
        let key = state.ring.remove(at: chosen)
        var queue = state.waiting[key]!
        let waiter = queue.removeFirst()
        state.waiterCount -= 1
        if queue.isEmpty {
            state.waiting[key] = nil
        } else {
            state.waiting[key] = queue
            state.ring.append(key)
        }
        state.busy += 1
        state.held[key, default: 0] += 1
        return waiter
    }

    private static func finish(_ waiter: Waiter, granted: Bool) {
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: granted)
    }
}
