import RelayCore
import RelayStore
import Synchronization

/// Claimed deliveries waiting for a send slot: one FIFO lane per app and platform (``LaneKey``), and how many
/// of each lane's requests are in flight. The sender takes jobs round robin from the lanes below their in-flight
/// limit, so a lane that is at its limit (its push service slow or unreachable, or a web push origin that an
/// attacker runs and answers slowly) holds up no other app's deliveries, nor its own app's on another
/// platform.
///
/// ``take()`` hands out at most `perAppLimit` jobs of one lane, and `inFlightLimit` in all, until their
/// ``finish(_:)``. Thread-safe; the dispatcher's sender, flusher and claim loop and tests share one instance.
final class DeliveryLanes<Job: LaneJob>: Sendable {
    /// How many the claim loop may add: `room` jobs in all, and of each app at most ``appRoom(_:)``.
    struct ClaimWindow: Equatable {
        var room: Int
        /// Room of the lanes that exist (jobs queued or in flight): 0 while more than half the lane is
        /// queued (it waits for ``DeliveryLanes/roomSignal``), else enough to fill it.
        var lanes: [LaneKey: Int]
        /// Room of an app without a lane: a burst starts.
        var startLimit: Int
        /// By app id, the least room of the app's lanes.
        private var apps: [String: Int] = [:]

        init(room: Int, lanes: [LaneKey: Int], startLimit: Int) {
            self.room = room
            self.lanes = lanes
            self.startLimit = startLimit
            for (key, laneRoom) in lanes { apps[key.appId] = min(apps[key.appId] ?? laneRoom, laneRoom) }
        }

        /// How many of `appId`'s jobs one claim may add. A claim is per app and may bring jobs of any of its
        /// platforms, so it is bounded by the app's fullest lane: 0 while one of its lanes is more than half
        /// queued, else what fills the fullest; ``startLimit`` when the app has no lane; all within `room`.
        /// A platform without a lane gets a new one, which the claim cannot overflow either.
        func appRoom(_ appId: String) -> Int { min(room, apps[appId] ?? startLimit) }
    }

    private struct Lane {
        var jobs: [Job] = []
        var head = 0
        var inFlight = 0
        /// Listed in `State.ready`.
        var scheduled = false
        var queued: Int { jobs.count - head }

        mutating func pop() -> Job {
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private struct State {
        var lanes: [LaneKey: Lane] = [:]
        /// Lanes with a queued job and a free slot, in the order they are served.
        var ready: [LaneKey] = []
        var readyHead = 0
        var queued = 0
        var inFlight = 0
        var waiters: [CheckedContinuation<Job?, Never>] = []
        /// Waiting in ``DeliveryLanes/untilNoneInFlight()``.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var closed = false
    }

    /// Requests one lane (an app's pushes to one platform) may have in flight: each of an app's platforms
    /// has the whole per-app limit, so one platform's slow push service cannot take another's slots.
    let perAppLimit: Int
    /// Jobs in flight at most, over all lanes.
    let inFlightLimit: Int
    /// Jobs one lane may have queued: two rounds of its in-flight limit, so its sends never wait for a
    /// claim (a store call that may queue behind a batch of results).
    let laneLimit: Int
    /// Jobs queued at most, over all lanes.
    let capacity: Int
    /// An app with no lane (nothing queued or in flight) is claimed this many first (a quarter of a lane's
    /// in-flight limit): a short claim, so a burst's first pushes leave at once; the claim of the rest follows
    /// while they are sent, as its lanes are then below half.
    let startLimit: Int
    /// A claim is due when no more than this many jobs are queued in all ...
    let lowWater: Int
    /// ... and an app takes part in it when no more than this many jobs are queued in each of its lanes
    /// (half a lane).
    let perAppLowWater: Int
    /// Signalled when the queue, or one lane, falls to its low water: a claim may be worth it now.
    let roomSignal = WakeSignal()
    private let state = Mutex(State())

    init(perAppLimit: Int, capacity: Int, inFlightLimit: Int = .max) {
        self.perAppLimit = max(1, perAppLimit)
        self.inFlightLimit = max(1, inFlightLimit)
        self.capacity = max(1, capacity)
        self.lowWater = self.capacity / 2
        self.laneLimit = 2 * self.perAppLimit
        self.startLimit = max(1, self.perAppLimit / 4)
        self.perAppLowWater = self.laneLimit / 2
    }

    /// Whether to claim now, and how much: a claim is due when no more than ``lowWater`` jobs are queued in
    /// all; an app takes part when no more than ``perAppLowWater`` jobs are queued in each of its lanes, up to
    /// ``laneLimit`` queued in its fullest (one claim may be all one app's, even all one platform's), or
    /// ``startLimit`` when it has no lane. Nil when no claim is due; the loop then waits for ``roomSignal``.
    func claimWindow() -> ClaimWindow? {
        state.withLock { state in
            guard !state.closed, state.queued <= lowWater else { return nil }
            var lanes: [LaneKey: Int] = [:]
            for (key, lane) in state.lanes {
                lanes[key] = lane.queued > perAppLowWater ? 0 : laneLimit - lane.queued
            }
            return ClaimWindow(room: capacity - state.queued, lanes: lanes, startLimit: startLimit)
        }
    }

    /// Queues `jobs` (in order, each in its ``LaneJob/laneKey``'s lane), handing them straight to waiting
    /// takers where a lane has a free slot.
    func add(_ jobs: [Job]) {
        guard !jobs.isEmpty else { return }
        let handed = state.withLock { state -> [Handoff] in
            for job in jobs {
                let key = job.laneKey
                let index = laneIndex(key, &state)
                state.lanes.values[index].jobs.append(job)
                state.queued += 1
                schedule(key, at: index, &state)
            }
            return serveWaiters(&state)
        }
        deliver(handed)
    }

    /// The next job to send, waiting for one if none can go now; nil once ``close()`` was called and every
    /// queued job has been handed out.
    func take() async -> Job? {
        let now = state.withLock { state -> (Next, [Handoff]) in
            let next = pop(&state)
            return (next, releaseIfDrained(&state))
        }
        deliver(now.1)
        switch now.0 {
        case .job(let job): return job
        case .finished: return nil
        case .wait: break
        }
        return await withCheckedContinuation { continuation in
            let (next, released) = state.withLock { state -> (Next, [Handoff]) in
                let next = pop(&state)
                if case .wait = next { state.waiters.append(continuation) }
                return (next, releaseIfDrained(&state))
            }
            deliver(released)
            switch next {
            case .job(let job): continuation.resume(returning: job)
            case .finished: continuation.resume(returning: nil)
            case .wait: break
            }
        }
    }

    /// A job of the lane `key` is done (its result recorded): its slot is free.
    func finish(_ key: LaneKey) { finish([key]) }

    /// Jobs of the lanes `keys` (one key per job) are done: their slots are free.
    func finish(_ keys: [LaneKey]) {
        guard !keys.isEmpty else { return }
        let (handed, idle) = state.withLock { state -> ([Handoff], [CheckedContinuation<Void, Never>]) in
            state.inFlight -= keys.count
            // A batch's keys often come in runs of one lane (a fan-out's): each run is one lookup.
            var start = keys.startIndex
            while start < keys.endIndex {
                let key = keys[start]
                var end = start + 1
                while end < keys.endIndex, keys[end] == key { end += 1 }
                free(end - start, of: key, &state)
                start = end
            }
            var handed = serveWaiters(&state)
            handed += releaseIfDrained(&state)
            guard state.inFlight == 0 else { return (handed, []) }
            defer { state.idleWaiters.removeAll() }
            return (handed, state.idleWaiters)
        }
        deliver(handed)
        for waiter in idle { waiter.resume() }
    }

    /// Returns once no job is in flight (every job handed out is finished).
    func untilNoneInFlight() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state in
                if state.inFlight == 0 { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// No more jobs will be added: takers drain what is queued, then ``take()`` answers nil.
    func close() {
        let released = state.withLock { state -> [Handoff] in
            state.closed = true
            return releaseIfDrained(&state)
        }
        deliver(released)
    }

    /// No more jobs will be added, and those still queued are taken out and returned (oldest first per lane)
    /// instead of sent: the jobs in flight finish, then ``take()`` answers nil.
    func closeTakingQueued() -> [Job] { takeQueued(closing: true) }

    /// The jobs still queued, taken out (oldest first per lane) instead of sent; jobs may be added again.
    func takeQueued() -> [Job] { takeQueued(closing: false) }

    private func takeQueued(closing: Bool) -> [Job] {
        let (queued, released) = state.withLock { state -> ([Job], [Handoff]) in
            if closing { state.closed = true }
            var queued: [Job] = []
            for (key, lane) in state.lanes {
                queued += lane.jobs[lane.head...]
                if lane.inFlight == 0 {
                    state.lanes[key] = nil
                } else {
                    state.lanes[key]!.jobs = []
                    state.lanes[key]!.head = 0
                    state.lanes[key]!.scheduled = false
                }
            }
            state.ready.removeAll()
            state.readyHead = 0
            state.queued = 0
            return (queued, releaseIfDrained(&state))
        }
        deliver(released)
        return queued
    }

    /// Jobs queued and in flight, over all lanes.
    var counts: (queued: Int, inFlight: Int) { state.withLock { ($0.queued, $0.inFlight) } }

    // MARK: Inside the lock

    /// A waiting taker and what it gets (nil: stop).
    private typealias Handoff = (waiter: CheckedContinuation<Job?, Never>, job: Job?)

    private enum Next {
        case job(Job)
        case wait
        case finished
    }

    /// Pops the next job round robin over the ready lanes.
    private func pop(_ state: inout State) -> Next {
        guard state.readyHead < state.ready.count else {
            return state.closed && state.queued == 0 ? .finished : .wait
        }
        guard state.inFlight < inFlightLimit else { return .wait }
        let key = state.ready[state.readyHead]
        state.readyHead += 1
        if state.readyHead == state.ready.count {
            state.ready.removeAll(keepingCapacity: true)
            state.readyHead = 0
        }
        // The lane is reached by its index, hashing its key once: `values[index]` changes it in place.
        let index = state.lanes.index(forKey: key)!
        let job = state.lanes.values[index].pop()
        state.lanes.values[index].inFlight += 1
        state.lanes.values[index].scheduled = false
        state.queued -= 1
        state.inFlight += 1
        schedule(key, at: index, &state)
        if state.queued == lowWater || state.lanes.values[index].queued == perAppLowWater { roomSignal.signal() }
        return .job(job)
    }

    /// The index of the lane `key` in the lanes, an empty lane added when there is none.
    private func laneIndex(_ key: LaneKey, _ state: inout State) -> Dictionary<LaneKey, Lane>.Index {
        if let index = state.lanes.index(forKey: key) { return index }
        state.lanes[key] = Lane()
        return state.lanes.index(forKey: key)!
    }

    /// `count` slots of the lane `key` are free: the lane goes when nothing is left in it, else it is
    /// scheduled.
    private func free(_ count: Int, of key: LaneKey, _ state: inout State) {
        guard let index = state.lanes.index(forKey: key) else { return }
        state.lanes.values[index].inFlight -= count
        if state.lanes.values[index].inFlight == 0, state.lanes.values[index].queued == 0 {
            state.lanes.remove(at: index)
        } else {
            schedule(key, at: index, &state)
        }
    }

    /// Lists the lane `key`, at `index` of the lanes, as ready when it has a queued job and a free slot.
    private func schedule(_ key: LaneKey, at index: Dictionary<LaneKey, Lane>.Index, _ state: inout State) {
        let lane = state.lanes.values[index]
        guard !lane.scheduled, lane.queued > 0, lane.inFlight < perAppLimit else { return }
        state.lanes.values[index].scheduled = true
        state.ready.append(key)
    }

    private func serveWaiters(_ state: inout State) -> [Handoff] {
        var handed: [Handoff] = []
        while !state.waiters.isEmpty, case .job(let job) = pop(&state) {
            handed.append((state.waiters.removeLast(), job))
        }
        return handed
    }

    /// Once closed and empty, every waiting taker is told to stop.
    private func releaseIfDrained(_ state: inout State) -> [Handoff] {
        guard state.closed, state.queued == 0, !state.waiters.isEmpty else { return [] }
        defer { state.waiters.removeAll() }
        return state.waiters.map { ($0, nil) }
    }

    private func deliver(_ handoffs: [Handoff]) {
        for handoff in handoffs { handoff.waiter.resume(returning: handoff.job) }
    }
}
