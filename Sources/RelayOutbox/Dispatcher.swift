import Foundation
import RelayCore
import RelayStore
import Synchronization

/// Sends the outbox: takes due deliveries and badge updates (``OutboxJob``) from the store, hands each to
/// its device's platform's ``RelayCore/PushTransport`` with bounded concurrency, and records each result
/// (``RelayCore/PushResult``) in batches. It knows no push service: the transports render, send and decide.
///
/// Three parts run side by side: a claim loop keeps ``DeliveryLanes`` (one lane per app and platform)
/// topped up (claiming when half of the lanes, or of each of an app's lanes, is left), the sender takes
/// jobs while the lanes have free send slots (`concurrency` in all) and starts each with its transport
/// (``RelayCore/PushTransport/start(_:completion:)``), whose completion hands the result to the flusher, and
/// the flusher records results as they come, each write a batch of all that arrived during the one before
/// (group commit, ``ResultBuffer``), then frees their slots. A job's slot is freed only once its result is
/// recorded, so a crash sends again at most `concurrency` pushes: those in flight, or answered and not yet
/// written. For APNs and FCM no task waits per push: their transports conclude a push on their client's
/// driver thread, and the sender and the flusher each wake once per batch (Web Push and badge updates are
/// sent in a task each). Between writes the flusher waits until a quarter of the sends its last write left
/// unanswered have answered, at most ``resultLinger``: under load a write then takes dozens of results
/// instead of the few that answer while one is written, and with fewer than eight sends in flight it writes
/// each answer at once.
///
/// While results cannot be recorded no new push is started: the flusher writes a batch that failed again
/// (after 250 ms, doubling up to 4 s) and holds its slots meanwhile, the claim loop stops claiming, and the
/// jobs queued in the lanes are taken out and handed back once the store answers again. A database outage
/// thus sends again at most the `concurrency` pushes in flight, as a crash does.
///
/// Runs as a service: when its task is cancelled it stops claiming, lets the sends in flight finish (each is
/// bounded by its transport's request timeout) and records them, then hands the jobs still queued in its
/// lanes back to the store (``RelayStore/Store/releaseClaims(_:owner:)``) unsent, so another relay on the
/// store, or this one's next start, takes them at once instead of after their lease; then ``run()``
/// returns. Nothing taken is dropped.
///
/// It claims only the apps it is given (the relay's configured apps): relays sharing a store whose
/// configurations differ for a while (a rolling change) leave another app's deliveries to the relays that
/// serve it, rather than failing them for want of its credentials.
///
/// Its claims are leased to `owner`, the relay's instance id. Wake-ups come from this relay's API
/// (``wake()``) and, through ``RelayStore/Store/setOutboxWakeHandler(_:)``, from other relays on the store.
public final class Dispatcher: Sendable {
    private let owner: String
    /// The apps this dispatcher claims for.
    private let appIds: Set<String>
    /// The apps with due deliveries this relay does not serve that it has logged (one line each).
    private let unservedLogged = Mutex<Set<String>>([])
    private let store: any Store
    private let transports: [Platform: any PushTransport]
    private let settings: Configuration.Delivery
    private let time: any TimeSource
    private let logger: Logger
    private let metrics: RelayMetrics
    private let signal = WakeSignal()
    private let wakes: WakeAssigner
    /// By app id, the grace window (`apps[].pushDelaySeconds`): a delay the app asked for, left out of the
    /// latency an answer records.
    private let pushDelays: [String: Int]
    /// The apps whose credentials a push service refuses, their sends paused.
    public let pauses: ProviderPauses
    /// Set while the store refuses the results: no claim is made and no queued job is sent.
    private let recordingFails = Mutex(false)
    /// How long the flusher waits at most, between writes, for a quarter of the unanswered sends to answer.
    static let resultLinger = Duration.milliseconds(5)

    /// - Parameters:
    ///   - owner: the instance id the claims are leased to.
    ///   - appIds: the apps it claims for.
    ///   - wakePolicies: by app id, the apps in wake mode (``WakeAssigner``).
    ///   - pushDelays: by app id, the apps' grace windows in SECONDS (`apps[].pushDelaySeconds`).
    public init(
        owner: String,
        appIds: some Sequence<String>,
        store: any Store,
        transports: [any PushTransport],
        settings: Configuration.Delivery,
        time: any TimeSource,
        metrics: RelayMetrics,
        logger: Logger,
        wakePolicies: [String: WakePolicy] = [:],
        pushDelays: [String: Int] = [:],
        pauses: ProviderPauses? = nil
    ) {
        self.pushDelays = pushDelays
        self.pauses = pauses ?? ProviderPauses(metrics: metrics, logger: logger)
        self.owner = owner
        self.appIds = Set(appIds)
        self.store = store
        self.transports = Dictionary(transports.map { ($0.platform, $0) }, uniquingKeysWith: { first, _ in first })
        self.settings = settings
        self.time = time
        self.metrics = metrics
        self.logger = logger
        wakes = WakeAssigner(policies: wakePolicies, store: store, time: time, metrics: metrics, logger: logger)
    }

    /// Tells the dispatcher new deliveries are due (after a webhook committed, here or on another relay), so
    /// it need not wait for its poll interval.
    public func wake() { signal.signal() }

    /// Claims, sends and records until cancelled; then finishes and records the sends in flight, hands back
    /// the jobs still queued and returns.
    public func run() async {
        // Two rounds of sends at most wait in the lanes, so the sender never waits for a claim.
        let lanes = DeliveryLanes<QueuedJob>(
            perAppLimit: min(settings.perAppConcurrency, settings.concurrency),
            capacity: 2 * settings.concurrency,
            inFlightLimit: settings.concurrency
        )
        let results = ResultBuffer()
        // Unstructured tasks: cancelling `run()` must not cancel a send (its answer would be lost and the
        // push sent again by the next run) nor the last flush.
        let sender = Task {
            while let queued = await lanes.take() {
                guard self.time.now <= queued.sendBy else {
                    self.leaveUnsent(queued.job)
                    lanes.finish(queued.laneKey)
                    continue
                }
                self.start(queued.job) { outcome in
                    let recorded = queued.records(outcome, at: self.time.now) ? outcome : nil
                    results.hand(queued.job, recorded, lane: queued.laneKey)
                }
            }
        }
        let flusher = Task { await self.flushUntilClosed(results, lanes: lanes) }

        await claimUntilCancelled(into: lanes)
        let unsent = lanes.closeTakingQueued()
        await sender.value
        await lanes.untilNoneInFlight()
        results.close()
        await flusher.value
        // After the results: a store that leases runs of ids may clear the lease of a job sent in the same run.
        await handBack(unsent)
    }

    /// Gives claimed jobs that were not sent back to the store. A failure leaves them leased: they are sent
    /// when the lease expires.
    private func handBack(_ jobs: [QueuedJob]) async {
        guard !jobs.isEmpty else { return }
        var deliveries: [Int64] = []
        var updates: [Int64] = []
        for queued in jobs {
            switch queued.job.id {
            case .delivery(let id): deliveries.append(id)
            case .badgeUpdate(let id): updates.append(id)
            }
        }
        do {
            try await store.releaseClaims(deliveries, owner: owner)
            try await store.releaseBadgeUpdateClaims(updates, owner: owner)
            logger.info("handed back unsent deliveries", ["count": jobs.count])
        } catch {
            logger.error("handing back unsent deliveries failed", ["error": "\(error)", "count": jobs.count])
        }
    }

    /// The claim loop: claims whenever ``DeliveryLanes`` has room and deliveries may be due (the last claim
    /// was full or left apps out, or a webhook woke it, or a poll interval passed); otherwise waits for room
    /// or for a wake. Jobs claimed as it is cancelled are queued all the same, and handed back with the rest.
    ///
    /// Which apps have due deliveries is read from the store when a round starts with none known, after a
    /// wake, or a poll interval after the last read (a wait for room ends by then); between, the rounds go on
    /// with the apps the last one left due (a full claim, or no room left for them). A fan-out's claims
    /// follow one another tens of times a second, and each read of the due apps costs PostgreSQL a scan per
    /// app.
    private func claimUntilCancelled(into lanes: DeliveryLanes<QueuedJob>) async {
        let poll = Duration.milliseconds(settings.pollIntervalMilliseconds)
        var moreDue = true
        var turn = 0  // which app's turn it is to be claimed first
        var known: [String] = []  // the apps the last round left due
        var readAt = ContinuousClock.now
        while !Task.isCancelled {
            if recordingFails.withLock({ $0 }) {
                // The wakes this wait takes (the handing back that ends it among them) call for a new read.
                await signal.wait(timeout: poll)
                known = []
                continue
            }
            if moreDue, let window = lanes.claimWindow() {
                let woken = signal.take()
                if known.isEmpty || woken || ContinuousClock.now - readAt >= poll {
                    known = await dueApps()
                    readAt = .now
                    pauses.endUnwaited(now: time.now)
                }
                let apps = known
                known = []
                var room = window.room
                var filled = false, waiting = false
                for index in apps.indices {
                    let appId = apps[(index + turn) % apps.count]
                    let limit = min(room, window.appRoom(appId), settings.batchSize)
                    guard limit > 0 else {
                        waiting = true
                        known.append(appId)
                        continue
                    }
                    let (jobs, claimed) = await claim(appId: appId, limit: limit)
                    lanes.add(jobs)
                    room -= jobs.count
                    if claimed == limit {
                        filled = true
                        known.append(appId)
                    }
                }
                known.sort()
                turn += 1
                if filled { continue }
                // Nothing more due, unless for apps whose lanes are full: claimed when those drain.
                moreDue = waiting
            }
            if moreDue {
                // Until room comes, or the next read of the due apps is due (one overdue waits for room).
                let untilRead = readAt + poll - ContinuousClock.now
                await lanes.roomSignal.wait(timeout: untilRead > .zero ? min(poll, untilRead) : poll)
            } else {
                await signal.wait(timeout: poll)
                moreDue = true
            }
        }
    }

    /// The flusher: writes whatever results have arrived, one batch per write, frees their send slots, and
    /// gathers the next batch (a quarter of the sends this write left unanswered, those that answered during
    /// it among them, within ``resultLinger``), or waits for the next result when none came; returns after
    /// recording the last ones once ``ResultBuffer/close()`` was called.
    private func flushUntilClosed(_ results: ResultBuffer, lanes: DeliveryLanes<QueuedJob>) async {
        let poll = Duration.milliseconds(settings.pollIntervalMilliseconds)
        let done = NotificationDoneReports(NotificationDoneLog(store: store, logger: logger))
        var batch = ResultBuffer.Batch()
        while true {
            let closed = results.takeAll(into: &batch)
            let recorded = batch.count == 0 ? false : await flush(batch, lanes: lanes, closing: closed)
            // Read before the batch's slots are freed: the sends in flight that this write did not answer.
            let unanswered = lanes.counts.inFlight - batch.lanes.count
            lanes.finish(batch.lanes)
            if recorded { done.add(batch.ended) }
            if closed {
                await done.finish()
                return
            }
            if batch.count == 0 {
                await results.wait(for: 1, within: poll)
            } else {
                await results.wait(for: unanswered / 4, within: Self.resultLinger)
            }
        }
    }

    /// The apps this relay serves with deliveries or badge updates due, by app id; the first time another
    /// app's are due, a warning names it.
    private func dueApps() async -> [String] {
        do {
            let now = time.now
            let apps = Set(try await store.appsWithDueDeliveries(now: now))
                .union(try await store.appsWithDueBadgeUpdates(now: now))
            let unserved = apps.subtracting(appIds)
            if !unserved.isEmpty {
                let new = unservedLogged.withLock { logged in
                    defer { logged.formUnion(unserved) }
                    return unserved.subtracting(logged)
                }
                for appId in new.sorted() {
                    logger.warning(
                        "deliveries are due for an app this relay does not serve; left to the relays that do",
                        ["app.id": appId]
                    )
                }
            }
            return apps.intersection(appIds).sorted()
        } catch {
            logger.storeCallFailed("finding due deliveries failed", error)
            return []
        }
    }

    /// Claims up to `limit` of the app's due deliveries, those given a wake push marked so (``WakeAssigner``),
    /// then its due badge updates within what is left of `limit`, each job with the time its send must start
    /// by (``QueuedJob``). The claim's cancelled deliveries (``RelayCore/DeliveryJob/cancelReason``) are counted and left out.
    /// - Returns: the jobs to send, and how many the claims returned (cancelled ones included).
    private func claim(appId: String, limit: Int) async -> (jobs: [QueuedJob], claimed: Int) {
        var sendable: [OutboxJob]
        var count: Int
        let now = time.now
        do {
            let claimed = try await store.claimDueDeliveries(
                appId: appId,
                now: now,
                limit: limit,
                leaseSeconds: settings.leaseSeconds,
                owner: owner
            )
            var jobs: [DeliveryJob] = []
            jobs.reserveCapacity(claimed.count)
            for job in claimed {
                guard let reason = job.cancelReason else {
                    jobs.append(job)
                    continue
                }
                DeliveryLog(logger: logger, job: job)(.debug, "delivery cancelled", ["push.reason": reason])
                metrics.recordOutcome("cancelled", reason: reason, app: appId, platform: job.token.platform)
            }
            sendable = await wakes.assign(jobs, appId: appId).map(OutboxJob.delivery)
            count = claimed.count
        } catch {
            logger.storeCallFailed("claiming deliveries failed", error, ["app.id": appId])
            return ([], 0)
        }
        guard count < limit else { return (QueuedJob.claimed(sendable, at: now, settings: settings), count) }
        do {
            let updates = try await store.claimDueBadgeUpdates(
                appId: appId,
                now: now,
                limit: limit - count,
                leaseSeconds: settings.leaseSeconds,
                owner: owner
            )
            sendable += updates.map(OutboxJob.badgeUpdate)
            count += updates.count
        } catch {
            logger.storeCallFailed("claiming badge updates failed", error, ["app.id": appId])
        }
        return (QueuedJob.claimed(sendable, at: now, settings: settings), count)
    }

    /// Records a batch of results, the deliveries' and the badge updates' each in one store call; false when
    /// the deliveries' could not be. While the store cannot take them for now
    /// (``RelayStore/StoreError/isTransient``; their slots stay taken, so no new push starts meanwhile) it tries
    /// again (after 250 ms, doubling up to 4 s): the first failure stops the claims and takes the queued jobs
    /// out of `lanes`, the write that answers hands those back to the store and lets the claims go on. Any
    /// other error, or a third failure while `closing`, gives the batch up: its results stay leased, and their
    /// pushes are sent again once the lease expires (at least once). A badge update's result is written once:
    /// one lost is sent again when its lease expires.
    private func flush(_ batch: ResultBuffer.Batch, lanes: DeliveryLanes<QueuedJob>, closing: Bool) async -> Bool {
        // Each store call is a trip to a store thread (and a connection of the pool): none for an empty list.
        let recorded = batch.deliveries.isEmpty ? true : await record(batch.deliveries, lanes: lanes, closing: closing)
        guard !batch.badgeUpdates.isEmpty else { return recorded }
        do {
            try await store.completeBadgeUpdates(batch.badgeUpdates, at: time.now)
        } catch {
            logger.error(
                "recording badge update results failed",
                ["error": "\(error)", "count": batch.badgeUpdates.count]
            )
        }
        return recorded
    }

    /// Writes delivery results, trying again while the store's failure is transient (``flush(_:lanes:closing:)``);
    /// false when they were given up.
    private func record(
        _ results: [(deliveryId: Int64, outcome: DeliveryOutcome)],
        lanes: DeliveryLanes<QueuedJob>,
        closing: Bool
    ) async -> Bool {
        var held: [QueuedJob] = []
        var pause = Duration.milliseconds(250)
        var recorded = false
        for attempt in 1... {
            do {
                try await store.complete(results, at: time.now)
                recorded = true
                break
            } catch {
                guard (error as? StoreError)?.isTransient == true else {
                    logger.storeCallFailed("recording delivery results failed", error, ["count": results.count])
                    break
                }
                if attempt == 1 {
                    recordingFails.withLock { $0 = true }
                    logger.error(
                        "recording delivery results failed; no push is sent until the store answers",
                        ["error": "\(error)", "count": results.count]
                    )
                }
                held += lanes.takeQueued()
                if closing && attempt >= 3 { return false }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(4))
            }
        }
        guard recordingFails.withLock({ $0 }) else { return recorded }
        logger.notice("recording delivery results again; sending resumes", ["count": results.count])
        await handBack(held)
        recordingFails.withLock { $0 = false }
        signal.signal()
        return recorded
    }

    /// Counts and logs a job left unsent because its lease could end before its answer (``QueuedJob``): no
    /// result is recorded (another relay may hold it now), and the next claim after its lease takes it again.
    /// A line per job at debug, as a push's own: a stalled relay leaves a batch at once, which the metric's
    /// `lease_ended` outcome counts.
    private func leaveUnsent(_ job: OutboxJob) {
        switch job {
        case .delivery(let delivery):
            DeliveryLog(logger: logger, job: delivery)(.debug, "delivery not sent: its lease ended while it waited")
            metrics.recordOutcome(
                MetricLabels.leaseEnded,
                reason: "none",
                app: delivery.appId,
                platform: delivery.platform
            )
        case .badgeUpdate(let update):
            logger.debug(
                "badge update not sent: its lease ended while it waited",
                ["app.id": update.appId, "token.suffix": update.token.suffix]
            )
            metrics.recordBadgeUpdate(MetricLabels.leaseEnded, app: update.appId, platform: update.token.platform)
        }
    }

    /// Starts one send of an outbox job; `completion` gets what the store records for its result.
    private func start(_ job: OutboxJob, then completion: @escaping @Sendable (DeliveryOutcome) -> Void) {
        switch job {
        case .delivery(let delivery): start(delivery, then: completion)
        case .badgeUpdate(let update): Task { completion(await self.attempt(update)) }
        }
    }

    /// One badge update through its device's transport.
    private func attempt(_ update: BadgeUpdateJob) async -> DeliveryOutcome {
        let platform = update.token.platform
        let result: PushResult
        if let transport = transports[platform] {
            result = await transport.send(update)
        } else {
            result = .fail(.configuration, status: nil, reason: "NoTransport")
        }
        let outcome = DeliveryOutcome(result, now: time.now)
        if logger.level <= .debug {
            logger.debug(
                "badge update",
                [
                    "outcome": outcome.metricName, "push.reason": result.reason ?? "none", "badge": update.badge,
                    "token.suffix": update.token.suffix, "device.platform": platform.rawValue,
                    "app.id": update.appId,
                ]
            )
        }
        metrics.recordBadgeUpdate(outcome.metricName, app: update.appId, platform: platform)
        return outcome
    }

    /// Starts one send through the job's transport; `completion` gets what the store records for its
    /// result, on the thread the answer comes on. A job past its expiration is not sent, nor one whose app's
    /// sends are paused (``ProviderPauses``) unless it is the pause's probe.
    private func start(_ job: DeliveryJob, then completion: @escaping @Sendable (DeliveryOutcome) -> Void) {
        let pause = ProviderPauses.Key(job)
        if job.content.hasExpired(at: time.now, attempts: job.attempts) {
            let result = PushResult.fail(.expired, status: nil, reason: "Expired")
            return completion(conclude(job, result, pause: pause, probe: false))
        }
        guard let transport = transports[job.token.platform] else {
            let result = PushResult.fail(.configuration, status: nil, reason: "NoTransport")
            return completion(conclude(job, result, pause: pause, probe: false))
        }
        let log = DeliveryLog(logger: logger, job: job)
        let probe: Bool
        switch pauses.admit(pause, now: time.now) {
        case .hold(let until):
            // Not an attempt: only a refused attempt counts (`outcome="paused"`), not each hold.
            log(.debug, "delivery held: the app's sends are paused")
            return completion(.deferred(at: heldUntil(until, job), status: nil, reason: nil))
        case .probe:
            probe = true
            log(.info, "probing the push service: the app's sends stay paused until it takes one")
        case .send:
            probe = false
        }
        let started = ContinuousClock.now
        transport.start(job) { result in
            self.metrics.recordAnswer(
                took: ContinuousClock.now - started,
                dueSecondsAgo: result.endsDelivery ? self.dueSecondsAgo(job) : nil,
                app: job.appId,
                platform: job.token.platform
            )
            switch result {
            case .credentialsRefused, .unreachable: break
            case _ where result.answered: self.pauses.answered(pause)
            default: if probe { self.pauses.probeUnanswered(pause, now: self.time.now) }
            }
            completion(self.conclude(job, result, pause: pause, probe: probe))
        }
    }

    /// Seconds since `job`'s notification was due, as the stores make it due (``RelayStore/NewNotification``):
    /// its message's time plus its app's grace window (a delay the app asked for, not lateness), and never
    /// before its acceptance.
    private func dueSecondsAgo(_ job: DeliveryJob) -> Double {
        let content = job.content
        let due = NotificationContent.due(messageAt: content.messageAt, delaySeconds: pushDelays[job.appId] ?? 0)
        return time.now.timeIntervalSince(max(content.createdAt, due))
    }

    /// What the store records for a delivery's `result`, logged and counted.
    private func conclude(
        _ job: DeliveryJob,
        _ result: PushResult,
        pause: ProviderPauses.Key,
        probe: Bool
    ) -> DeliveryOutcome {
        let log = DeliveryLog(logger: logger, job: job)
        let outcome: DeliveryOutcome
        if let (cause, status) = result.pauseCause, let reason = result.reason {
            let until = pauses.failed(pause, cause: cause, reason: reason, probe: probe, now: time.now)
            outcome = .deferred(at: heldUntil(until, job), status: status, reason: reason)
        } else if case .held(let after, let reason) = result {
            outcome = .deferred(at: heldUntil(time.now + after.timeInterval, job), status: nil, reason: reason)
        } else {
            outcome = DeliveryOutcome(result, now: time.now)
        }
        switch (result, outcome) {
        case (.credentialsRefused(_, let reason), _):
            log(.debug, "delivery held: the push service refused the relay's credentials", ["push.reason": reason])
        case (.unreachable, _):
            log(.debug, "delivery held: the push service does not answer")
        case (.held(_, let reason), _):
            log(.debug, "delivery held by its transport", ["push.reason": reason])
        case (.delivered(let id), _):
            log(.debug, "push accepted", id.map { ["push.serviceId": $0] } ?? [:])
        case (.retire(_, let reason, _), _):
            // The store retires the device unless it registered again after the service knew the token dead.
            log(.notice, "device token reported invalid", ["push.reason": reason])
        case (.unlink(_, _, let reason), _):
            log(.notice, "device token unlinked from the identity sent as", ["push.reason": reason])
        case (.retry(_, _, let reason), .retry(let at, _, _)):
            log(
                .debug,
                "delivery to be retried",
                ["push.reason": reason ?? "none", "attempt": job.attempts + 1, "retry.at": Timestamp.rfc3339(at)]
            )
        case (.fail(let failure, _, let reason), _):
            log(.warning, "delivery failed", ["push.reason": reason, "failure": failure.rawValue])
        case (.retry, _):
            break
        }
        metrics.recordOutcome(
            outcome.metricName,
            reason: result.reason ?? "none",
            app: job.appId,
            platform: job.token.platform
        )
        return outcome
    }
}

extension PushResult {
    /// Why the result pauses its key's sends (``ProviderPauses``), with the service's status if it answered;
    /// nil for a result that does not.
    var pauseCause: (ProviderPauses.Cause, status: Int?)? {
        switch self {
        case .credentialsRefused(let status, _): (.credentials, status)
        case .unreachable: (.unreachable, nil)
        default: nil
        }
    }

    /// Whether the push service's answer ends the delivery (sent, retired, unlinked or failed), so it counts
    /// in `pushrelay_accepted_to_answered_seconds`; a retry or a refusal of the relay's credentials does not.
    var endsDelivery: Bool {
        switch self {
        case .retry, .credentialsRefused, .held, .unreachable: false
        default: true
        }
    }
}

extension Dispatcher {
    /// When a held delivery comes due again: at `until`, or at its expiration when that is sooner (it then
    /// ends `expired` when claimed).
    func heldUntil(_ until: Date, _ job: DeliveryJob) -> Date {
        guard let expiration = job.content.expiration, expiration > 0 else { return until }
        return min(until, Date(timeIntervalSince1970: TimeInterval(expiration)))
    }
}

extension DeliveryOutcome {
    /// What the store records for a transport's `result` at `now`: a retry is due `now` plus its delay.
    init(_ result: PushResult, now: Date) {
        switch result {
        case .delivered: self = .sent
        case .retire(let status, let reason, let invalidSince):
            self = .retired(status: status, reason: reason, invalidSince: invalidSince)
        case .unlink(let sendAs, let status, let reason):
            self = .unlink(sendAs: sendAs, status: status, reason: reason)
        case .retry(let delay, let status, let reason):
            self = .retry(at: now + delay.timeInterval, status: status, reason: reason)
        case .fail(_, let status, let reason):
            self = .failed(status: status, reason: reason)
        case .credentialsRefused, .unreachable:
            // A job outside the pauses' bookkeeping (a badge update) tries again after a minute.
            self = .retry(at: now + 60, status: result.pauseCause?.status, reason: result.reason)
        case .held(let after, let reason):
            self = .deferred(at: now + after.timeInterval, status: nil, reason: reason)
        }
    }

    /// Whether the delivery stays pending (a retry, or held by a pause), so its notification is not done.
    var isRetry: Bool {
        switch self {
        case .retry, .deferred: true
        default: false
        }
    }

    /// The `outcome` label of ``RelayMetrics/recordOutcome(_:reason:app:platform:)``.
    var metricName: String {
        switch self {
        case .sent: "sent"
        case .retry: "retry"
        case .failed: "failed"
        case .retired: "retired"
        case .unlink: "unlinked"
        case .deferred: "paused"
        }
    }
}

/// Log lines about one delivery, with its notification id, push id (the apns-id on iOS), platform and token
/// suffix; the metadata is built only for lines the logger's level lets through (a fan-out logs nothing per
/// device at `warning`).
struct DeliveryLog {
    let logger: Logger
    let job: DeliveryJob

    func callAsFunction(_ level: Logger.Level, _ message: String, _ extra: @autoclosure () -> Logger.Metadata = [:]) {
        guard level >= logger.level else { return }
        var metadata = extra()
        metadata["app.id"] = job.appId
        metadata["notification.id"] = job.notificationId.lowercasedString
        metadata["token.suffix"] = job.token.suffix
        metadata["device.platform"] = job.token.platform.rawValue
        metadata["push.id"] = job.pushId.lowercasedString
        logger.log(level, message, metadata)
    }
}
