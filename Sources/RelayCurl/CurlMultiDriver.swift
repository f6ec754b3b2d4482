import CCurl
import Foundation
import RelayCore
import Synchronization

/// One libcurl multi handle and the one thread that drives it, looping on `curl_multi_poll`: the HTTP/2
/// engine under each push transport's client, which prepares the requests and reads the answers.
///
/// Callers hand requests over through ``submit(_:completion:)`` or ``send(_:)`` (a FIFO queue under a Mutex,
/// ``enqueue(id:request:completion:)``) and are answered exactly once: by whoever takes their completion out
/// of `waiting` (the driver on completion, the queue on expiry, ``cancel(id:)`` on cancellation). A
/// completion runs on the driver thread when the answer comes, so a caller that goes on from there (the
/// outbox's sends) costs no task resumed per request.
///
/// `@unchecked Sendable`: the C handles and the `active`/`pool` tables are touched only by the driver thread
/// (and by `deinit`, after it ended); everything callers touch is in `shared`, a Mutex, and
/// `curl_multi_wakeup` is documented as callable from any thread (we call it under the Mutex and never after
/// the driver began cleanup).
package final class CurlMultiDriver: @unchecked Sendable {
    /// What a request's caller is answered with; called once, on the driver thread or the caller's own.
    package typealias Completion = @Sendable (Result<CurlResponse, any Error>) -> Void

    private struct Queued {
        let id: UInt64
        let request: CurlRequest
    }

    private struct Shared {
        var queue = FIFOQueue<Queued>()
        var waiting: [UInt64: Completion] = [:]
        var cancelled: [UInt64] = []
        var accepting = true
        var wakePending = false
        /// The loop ended: nothing may wake `multi` any more.
        var finished = false
        /// `multi` and its handles are freed (by ``finish()``; `deinit` frees them otherwise): ``shutdown()``
        /// returns at once. Set after ``finished``, so a shutdown that comes between the two still waits for
        /// the cleanup.
        var cleanedUp = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct Active {
        let handle: CurlEasyHandle
        let request: CurlRequest
        var attempts: Int
    }

    private let shared = Mutex(Shared())
    private let ids = Atomic<UInt64>(0)

    // Driver thread only.
    private let multi: UnsafeMutableRawPointer
    private let options: CurlCommonOptions
    private let maxInFlight: Int
    private let idlePoll: Duration
    private let threadName: String
    private let responseHeaders: [String]
    private let logger: Logger
    /// The driver thread's Linux thread id while it runs, 0 otherwise.
    private let threadId = Atomic<Int32>(0)
    private var pool: [CurlEasyHandle] = []
    private var active: [UInt64: Active] = [:]
    private var byHandle: [UnsafeMutableRawPointer: UInt64] = [:]
    /// - Parameters:
    ///   - maxInFlight: most requests handed to libcurl at once; the rest wait in a FIFO queue.
    ///   - maxConnections: most connections to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`).
    ///   - maxTotalConnections: most connections in all (`CURLMOPT_MAX_TOTAL_CONNECTIONS`); nil is
    ///     `maxConnections` (one host).
    ///   - idlePoll: longest `curl_multi_poll` wait while no transfer runs and nothing is due.
    ///   - threadName: the driver thread's name (e.g. `apns-curl`), as `top -H` shows it.
    ///   - responseHeaders: names of the answer headers read into ``CurlResponse/headers``.
    /// - Throws: ``TransportError`` `.other` when libcurl cannot make the multi handle.
    package init(
        options: CurlCommonOptions,
        maxInFlight: Int,
        maxConnections: Int,
        maxTotalConnections: Int? = nil,
        idlePoll: Duration,
        threadName: String,
        responseHeaders: [String],
        logger: Logger
    )
        throws(TransportError)
    {
        _ = CurlEasy.globalInit
        guard let multi = curl_multi_init() else {
            throw TransportError(code: .other, message: "curl_multi_init failed")
        }
        self.multi = multi
        self.options = options
        self.maxInFlight = maxInFlight
        self.idlePoll = idlePoll
        self.threadName = threadName
        self.responseHeaders = responseHeaders
        self.logger = logger
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxTotalConnections ?? maxConnections)
        // libcurl's own per-connection cap (default 100); the server's SETTINGS_MAX_CONCURRENT_STREAMS
        // still lowers it.
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(100, maxInFlight))
    }

    deinit {
        pool.removeAll()
        // ``finish()`` freed `multi`; a driver never started frees it here.
        if !shared.withLock({ $0.cleanedUp }) { curl_multi_cleanup(multi) }
    }

    /// Starts the driver thread; it keeps `self` alive until it ends.
    package func start() {
        let thread = Thread { [self] in
            ThreadName.setForThisThread(threadName)
            threadId.store(Self.currentThreadId(), ordering: .releasing)
            run()
        }
        thread.start()
    }

    /// The driver thread's OS thread id (Linux tid, as in `/proc/self/task/<tid>`) while it runs; nil before
    /// it started and once its loop ended (before ``shutdown()`` returns; the OS thread exits a moment
    /// later).
    package var runningThreadId: Int32? {
        let id = threadId.load(ordering: .acquiring)
        return id == 0 ? nil : id
    }

    /// The calling thread's Linux tid, read from the `/proc/thread-self` link (`<pid>/task/<tid>`); 0 where
    /// there is none.
    private static func currentThreadId() -> Int32 {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard count > 0 else { return 0 }
        let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return link.split(separator: "/").last.flatMap { Int32($0) } ?? 0
    }

    /// A new request id.
    private func makeId() -> UInt64 { ids.add(1, ordering: .relaxed).newValue }

    /// Queues a request, or answers `completion` at once with ``TransportError/Code/shutdown`` or, for a
    /// caller `waiting` in a task already cancelled, `CancellationError`. A submitted request is not the
    /// calling task's: it may be queued from within another request's task (the pool hands a freed connection
    /// to a waiting request), whose cancellation is not its own.
    private func enqueue(id: UInt64, request: CurlRequest, waiting: Bool, completion: @escaping Completion) {
        let rejection: (any Error)? = shared.withLock { state in
            if waiting && Task.isCancelled { return CancellationError() }
            guard state.accepting else {
                return TransportError(code: .shutdown, message: "the client is shut down")
            }
            state.waiting[id] = completion
            state.queue.append(Queued(id: id, request: request))
            wake(&state)
            return nil
        }
        if let rejection { completion(.failure(rejection)) }
    }

    /// Sends `request` and calls `completion` with its answer or failure (``TransportError`` when no answer
    /// came), on the driver thread; at once, on the caller's, when the driver no longer takes requests.
    package func submit(_ request: CurlRequest, completion: @escaping Completion) {
        enqueue(id: makeId(), request: request, waiting: false, completion: completion)
    }

    /// Sends `request` and suspends until its answer, its failure, or the task's cancellation (which drops
    /// the transfer).
    /// - Throws: ``TransportError`` when no answer came; `CancellationError` when the task is cancelled.
    package func send(_ request: CurlRequest) async throws -> CurlResponse {
        let id = makeId()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enqueue(id: id, request: request, waiting: true) { continuation.resume(with: $0) }
            }
        } onCancel: {
            cancel(id: id)
        }
    }

    /// Answers the request's caller with `CancellationError` now; the driver drops its transfer soon after.
    private func cancel(id: UInt64) {
        let completion = shared.withLock { state -> Completion? in
            guard let completion = state.waiting.removeValue(forKey: id) else { return nil }
            state.cancelled.append(id)
            wake(&state)
            return completion
        }
        completion?(.failure(CancellationError()))
    }

    /// Stops taking requests; queued and in-flight ones finish or fail, then the thread ends.
    package func stopAccepting() {
        shared.withLock { state in
            state.accepting = false
            wake(&state)
        }
    }

    /// ``stopAccepting()``, then waits until the driver thread has ended and freed libcurl's handles.
    package func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { state -> Bool in
                state.accepting = false
                if state.cleanedUp { return true }
                state.finishWaiters.append(continuation)
                wake(&state)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func wake(_ state: inout Shared) {
        guard !state.wakePending, !state.finished else { return }
        state.wakePending = true
        _ = curl_multi_wakeup(multi)
    }

    // MARK: - Driver thread

    private struct Work {
        var taken: [Queued] = []
        var expired: [Completion] = []
        var cancelled: [UInt64] = []
        var draining = false
        var queueEmpty = true
        var nextDeadline: ContinuousClock.Instant?
    }

    private func takeWork(capacity: Int, now: ContinuousClock.Instant) -> Work {
        shared.withLock { state in
            state.wakePending = false
            var work = Work()
            while !state.queue.isEmpty, work.taken.count < capacity {
                let queued = state.queue.removeFirst()
                guard state.waiting[queued.id] != nil else { continue }
                if queued.request.deadline <= now {
                    work.expired.append(state.waiting.removeValue(forKey: queued.id)!)
                } else {
                    work.taken.append(queued)
                }
            }
            // Beyond capacity: expire what waited in the queue until its deadline (FIFO, same timeout).
            while let next = state.queue.first, next.request.deadline <= now {
                if let completion = state.waiting.removeValue(forKey: state.queue.removeFirst().id) {
                    work.expired.append(completion)
                }
            }
            work.cancelled = state.cancelled
            state.cancelled.removeAll()
            work.draining = !state.accepting
            work.queueEmpty = state.queue.isEmpty
            work.nextDeadline = state.queue.first?.request.deadline
            return work
        }
    }

    private func run() {
        BrokenPipe.blockOnThisThread()
        var running: Int32 = 0
        while true {
            let now = ContinuousClock.now
            let work = takeWork(capacity: maxInFlight - active.count, now: now)
            for completion in work.expired {
                completion(.failure(TransportError(code: .timeout, message: "request deadline passed while queued")))
            }
            for id in work.cancelled { drop(id) }
            for queued in work.taken { start(queued, now: now) }
            _ = curl_multi_perform(multi, &running)
            readCompletions()
            if work.draining && work.queueEmpty && active.isEmpty { break }
            let timeout = Self.pollTimeout(
                idle: idlePoll,
                transfers: active.count,
                startable: !work.queueEmpty && active.count < maxInFlight,
                untilDeadline: work.nextDeadline.map { $0 - ContinuousClock.now }
            )
            _ = curl_multi_poll(multi, nil, 0, Int32(timeout.curlMilliseconds), nil)
        }
        finish()
    }

    /// The longest wait while transfers run. libcurl (8.14 here) can hold an answer it has already read from
    /// the socket in its buffers while the socket no longer polls readable; only the next `curl_multi_perform`
    /// reads it, so a wait this short bounds how long such an answer sits unread. A transfer on a dead
    /// connection wakes the driver this often until its deadline.
    package static let activePoll = Duration.milliseconds(10)

    /// How long the driver waits in `curl_multi_poll` (in whole milliseconds, at least one:
    /// `Duration.curlMilliseconds`): zero when a queued request can start now (`startable`: a completion
    /// opened room for it), else `idle` while no transfer runs and at most ``activePoll`` while `transfers`
    /// run, never past the first queued request's deadline (`untilDeadline` from now).
    package static func pollTimeout(
        idle: Duration,
        transfers: Int,
        startable: Bool,
        untilDeadline: Duration?
    ) -> Duration {
        if startable { return .zero }
        var timeout = transfers > 0 ? min(idle, activePoll) : idle
        if let untilDeadline { timeout = min(timeout, max(.zero, untilDeadline)) }
        return timeout
    }

    private func start(_ queued: Queued, now: ContinuousClock.Instant) {
        let handle: CurlEasyHandle
        do {
            handle = try pool.popLast() ?? CurlEasyHandle(options: options)
            try handle.prepare(queued.request, timeoutMs: (queued.request.deadline - now).curlMilliseconds)
        } catch {
            resume(queued.id, with: .failure(error))
            return
        }
        let code = curl_multi_add_handle(multi, handle.raw)
        guard code == CURLM_OK else {
            pool.append(handle)
            let message = "curl_multi_add_handle: " + String(cString: curl_multi_strerror(code))
            resume(queued.id, with: .failure(TransportError(code: .other, message: message)))
            return
        }
        active[queued.id] = Active(handle: handle, request: queued.request, attempts: 1)
        byHandle[handle.raw] = queued.id
    }

    /// Removes a cancelled request's transfer, if it is still running.
    private func drop(_ id: UInt64) {
        guard let transfer = active.removeValue(forKey: id) else { return }
        byHandle[transfer.handle.raw] = nil
        _ = curl_multi_remove_handle(multi, transfer.handle.raw)
        recycle(transfer.handle)
    }

    private func recycle(_ handle: CurlEasyHandle) {
        if pool.count < maxInFlight { pool.append(handle) }
    }

    private func readCompletions() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            guard let id = byHandle[easy], var transfer = active[id] else { continue }
            _ = curl_multi_remove_handle(multi, easy)
            let handle = transfer.handle
            if result == CURLE_OK {
                var headers: [String: String] = [:]
                for name in responseHeaders { headers[name] = handle.responseHeader(name) }
                let response = CurlResponse(status: handle.responseCode, headers: headers, body: handle.body)
                complete(id, handle: handle, with: .success(response))
                continue
            }
            let error = handle.transportError(result)
            let remaining = transfer.request.deadline - ContinuousClock.now
            if error.code == .refused, transfer.attempts == 1, remaining > .milliseconds(1) {
                // Not processed by the server (RFC 9113 §8.7): resend once, on whatever connection
                // libcurl picks (a GOAWAY'd one is never reused).
                transfer.attempts += 1
                handle.setTimeout(ms: remaining.curlMilliseconds)
                if curl_multi_add_handle(multi, easy) == CURLM_OK {
                    active[id] = transfer
                    logger.debug("resending a refused stream", ["token.suffix": transfer.request.tokenSuffix])
                    continue
                }
            }
            logger.debug(
                "transport error",
                ["token.suffix": transfer.request.tokenSuffix, "error": error.description]
            )
            complete(id, handle: handle, with: .failure(error))
        }
    }

    private func complete(_ id: UInt64, handle: CurlEasyHandle, with result: Result<CurlResponse, any Error>) {
        active[id] = nil
        byHandle[handle.raw] = nil
        recycle(handle)
        resume(id, with: result)
    }

    private func resume(_ id: UInt64, with result: Result<CurlResponse, any Error>) {
        let completion = shared.withLock { $0.waiting.removeValue(forKey: id) }
        completion?(result)
    }

    private func finish() {
        let leftovers = shared.withLock { state in
            state.finished = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for leftover in leftovers {
            leftover(.failure(TransportError(code: .shutdown, message: "the client shut down")))
        }
        for transfer in active.values { _ = curl_multi_remove_handle(multi, transfer.handle.raw) }
        active.removeAll()
        byHandle.removeAll()
        pool.removeAll()
        // Its connections (TLS sessions included) are closed here, before ``shutdown()`` returns: a process
        // that exits then never has this thread in OpenSSL while the exit handlers tear it down.
        curl_multi_cleanup(multi)
        threadId.store(0, ordering: .releasing)
        let waiters = shared.withLock { state in
            state.cleanedUp = true
            defer { state.finishWaiters.removeAll() }
            return state.finishWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
