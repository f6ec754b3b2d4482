import Foundation
import RelayCore
import RelayCurl
import Synchronization

/// Several HTTP/2 connections to one APNs endpoint, each one libcurl multi handle on its own driver thread,
/// and the one rule that spreads requests over them.
///
/// The rule (``choose(_:now:)``): a cold connection with nothing in flight takes one request, its probe;
/// otherwise the warm connection with the fewest requests in flight takes it, up to `perConnection`. A
/// connection is cold until a request on it got an answer whose status is not among `holding` (403, a
/// provider token problem), and again after a connection-level failure or 60 s idle: APNs allows ONE stream
/// before a provider token proved itself on the connection, and libcurl answers a REFUSED_STREAM by dropping
/// the connection (Apple, "Sending notification requests to APNs"). A request no connection has room for
/// waits here, in FIFO order, never behind one connection: whichever connection answers first takes it, so
/// a probe that is slow to answer holds up nobody but itself. libcurl keeps each connection within the
/// server's SETTINGS_MAX_CONCURRENT_STREAMS, holding extra transfers until a stream closes.
///
/// A waiting request expires at its deadline when the next request finishes. That is never late by more
/// than the driver's own timing: a request waits only while every connection has one in flight, and those
/// went out earlier with the same timeout (``APNsClientConfiguration/requestTimeout``), so one of them
/// finishes (answered, failed or timed out) no later than the waiter's deadline.
final class APNsConnectionPool: Sendable {
    private let drivers: [CurlMultiDriver]
    private let perConnection: Int
    private let holding: Set<Int>
    private let state: Mutex<State>
    private let ids = Atomic<UInt64>(0)
    /// Idle time after which a connection may be gone, so its next request is a probe again.
    static let rewarmAfterIdle: Duration = .seconds(60)

    struct Connection {
        /// Requests handed to this connection's driver and not yet finished.
        var inFlight = 0
        /// A request got an answer on it (see the type's rule).
        var warm = false
        var lastAnswer = ContinuousClock.now
    }

    /// What a request waiting for room is handed: the connection it takes, or why it takes none.
    private typealias Handoff = @Sendable (Result<Int, any Error>) -> Void

    private struct Waiter {
        var deadline: ContinuousClock.Instant
        var handoff: Handoff
    }

    private struct State {
        var connections: [Connection]
        var waiters: [UInt64: Waiter] = [:]
        /// Waiter ids in arrival order; ids no longer in `waiters` (cancelled) are skipped.
        var order = FIFOQueue<UInt64>()
        var accepting = true
        var drainWaiters: [CheckedContinuation<Void, Never>] = []

        var isDrained: Bool { waiters.isEmpty && connections.allSatisfy { $0.inFlight == 0 } }
    }

    /// Makes `count` drivers (threads `<threadName>-1`, `-2`, ...), one connection each, and starts them.
    /// - Parameters:
    ///   - perConnection: most requests one connection's driver holds at once.
    ///   - holding: answer statuses that leave a connection cold.
    /// - Throws: ``TransportError`` `.other` when libcurl cannot make a multi handle.
    init(
        count: Int,
        perConnection: Int,
        holding: Set<Int>,
        options: CurlCommonOptions,
        idlePoll: Duration,
        threadName: String,
        responseHeaders: [String],
        logger: Logger
    ) throws(TransportError) {
        var drivers: [CurlMultiDriver] = []
        for index in 1...max(1, count) {
            drivers.append(
                try CurlMultiDriver(
                    options: options,
                    maxInFlight: perConnection,
                    maxConnections: 1,
                    idlePoll: idlePoll,
                    threadName: "\(threadName)-\(index)",
                    responseHeaders: responseHeaders,
                    logger: logger.with(["apns.connection": "\(index)"])
                )
            )
        }
        self.drivers = drivers
        self.perConnection = perConnection
        self.holding = holding
        state = Mutex(State(connections: Array(repeating: Connection(), count: drivers.count)))
        for driver in drivers { driver.start() }
    }

    deinit { for driver in drivers { driver.stopAccepting() } }

    /// Requests in flight on the connections, and requests waiting for room (tests).
    package var counts: (inFlight: Int, waiting: Int) {
        state.withLock { state in (state.connections.reduce(0) { $0 + $1.inFlight }, state.waiters.count) }
    }

    /// The OS thread ids of the drivers still running (Linux tids; empty elsewhere).
    package var runningThreadIds: [Int32] { drivers.compactMap(\.runningThreadId) }

    /// Sends `request` on the connection the rule picks, waiting for room when none has any.
    /// - Throws: what the driver throws; ``TransportError/Code/timeout`` when the deadline passed while
    ///   waiting; ``TransportError/Code/shutdown`` after ``shutdown()``; `CancellationError`.
    func send(_ request: CurlRequest) async throws -> CurlResponse {
        let index = try await acquire(deadline: request.deadline)
        let result: Result<CurlResponse, any Error>
        do { result = .success(try await drivers[index].send(request)) } catch { result = .failure(error) }
        release(index, after: result)
        return try result.get()
    }

    /// Sends `request` as ``send(_:)`` does and calls `completion` with its answer or failure, on a driver
    /// thread (or at once, on the caller's, when it cannot be sent), without a task waiting for it.
    func submit(_ request: CurlRequest, completion: @escaping CurlMultiDriver.Completion) {
        acquire(id: ids.add(1, ordering: .relaxed).newValue, deadline: request.deadline, waiting: false) { taken in
            switch taken {
            case .failure(let error):
                completion(.failure(error))
            case .success(let index):
                self.drivers[index].submit(request) { result in
                    self.release(index, after: result)
                    completion(result)
                }
            }
        }
    }

    /// Stops taking requests, waits until every waiting and in-flight one finished (each within its
    /// deadline), then shuts every driver down and waits until their threads ended. Safe to call twice.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained = state.withLock { state -> Bool in
                state.accepting = false
                if state.isDrained { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
        await withTaskGroup(of: Void.self) { group in
            for driver in drivers { group.addTask { await driver.shutdown() } }
        }
    }

    /// The connection the next request goes to, or nil when none has room (see the type's rule). Also
    /// turns a connection idle for ``rewarmAfterIdle`` cold.
    static func choose(_ connections: inout [Connection], perConnection: Int, now: ContinuousClock.Instant) -> Int? {
        var best: Int?
        for index in connections.indices {
            if connections[index].warm, connections[index].inFlight == 0,
                now - connections[index].lastAnswer >= rewarmAfterIdle
            {
                connections[index].warm = false
            }
            let connection = connections[index]
            guard connection.warm else {
                if connection.inFlight == 0 { return index }
                continue
            }
            if connection.inFlight < perConnection, best.map({ connection.inFlight < connections[$0].inFlight }) ?? true
            {
                best = index
            }
        }
        return best
    }

    /// A connection with room, taken now or once one has room.
    private func acquire(deadline: ContinuousClock.Instant) async throws -> Int {
        let id = ids.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                acquire(id: id, deadline: deadline, waiting: true) { continuation.resume(with: $0) }
            }
        } onCancel: {
            let (waiter, drained) = state.withLock { state in
                (state.waiters.removeValue(forKey: id), Self.takeDrainWaiters(&state))
            }
            waiter?.handoff(.failure(CancellationError()))
            for continuation in drained { continuation.resume() }
        }
    }

    /// Hands `handoff` a connection with room now, or once one has room (in arrival order), or the reason
    /// it gets none: `CancellationError` only for a caller `waiting` in a task already cancelled.
    private func acquire(
        id: UInt64,
        deadline: ContinuousClock.Instant,
        waiting: Bool,
        then handoff: @escaping Handoff
    ) {
        let now = ContinuousClock.now
        let taken: Result<Int, any Error>? = state.withLock { state in
            if waiting && Task.isCancelled { return .failure(CancellationError()) }
            guard state.accepting else {
                return .failure(TransportError(code: .shutdown, message: "the client is shut down"))
            }
            if state.waiters.isEmpty,
                let index = Self.choose(&state.connections, perConnection: perConnection, now: now)
            {
                state.connections[index].inFlight += 1
                return .success(index)
            }
            state.waiters[id] = Waiter(deadline: deadline, handoff: handoff)
            state.order.append(id)
            return nil
        }
        if let taken { handoff(taken) }
    }

    /// Books the finished request against its connection, updates the connection's warmth from how it
    /// ended, and hands freed room to waiting requests.
    private func release(_ index: Int, after result: Result<CurlResponse, any Error>) {
        let now = ContinuousClock.now
        let (handed, drained) = state.withLock { state in
            state.connections[index].inFlight -= 1
            switch result {
            case .success(let response):
                state.connections[index].lastAnswer = now
                if !holding.contains(response.status) { state.connections[index].warm = true }
            case .failure(let error as TransportError) where Self.isConnectionFailure(error.code):
                state.connections[index].warm = false
            case .failure:
                break
            }
            return (handOut(&state, now: now), Self.takeDrainWaiters(&state))
        }
        for (handoff, result) in handed { handoff(result) }
        for continuation in drained { continuation.resume() }
    }

    /// A failure after which the connection may be a new one, which must warm up again.
    private static func isConnectionFailure(_ code: TransportError.Code) -> Bool {
        [.connect, .tls, .reset, .refused].contains(code)
    }

    /// Waiting requests, oldest first, each with the connection it takes or its timeout.
    private func handOut(
        _ state: inout State,
        now: ContinuousClock.Instant
    ) -> [(Handoff, Result<Int, any Error>)] {
        var handed: [(Handoff, Result<Int, any Error>)] = []
        while let id = state.order.first {
            guard let waiter = state.waiters[id] else {
                _ = state.order.removeFirst()
                continue
            }
            if waiter.deadline <= now {
                let expired = TransportError(code: .timeout, message: "request deadline passed while queued")
                handed.append((waiter.handoff, .failure(expired)))
            } else if let index = Self.choose(&state.connections, perConnection: perConnection, now: now) {
                state.connections[index].inFlight += 1
                handed.append((waiter.handoff, .success(index)))
            } else {
                break
            }
            state.waiters[id] = nil
            _ = state.order.removeFirst()
        }
        return handed
    }

    /// The continuations ``shutdown()`` waits on, once nothing is waiting or in flight after it began.
    private static func takeDrainWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard !state.accepting, !state.drainWaiters.isEmpty, state.isDrained else { return [] }
        defer { state.drainWaiters.removeAll() }
        return state.drainWaiters
    }
}
