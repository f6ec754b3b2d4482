import Foundation
import RelayAPNs
import RelayCore
import RelayStore

/// Sends the outbox: takes due deliveries from the store, sends each to APNs with bounded concurrency,
/// decides each token's fate from the answer (``DeliveryDecision``) and records it in batches.
///
/// Three parts run side by side, so the pipe to APNs never waits for SQLite: a claim loop keeps
/// ``DeliveryLanes`` topped up (claiming when half of the lanes, or of an app's lane, is left), `concurrency`
/// workers each take a job, send it and hand its result on, and a flusher records results in batches (at
/// least every poll interval, and as each send finishes while nothing is queued, so a burst's last results
/// wait for no batch).
///
/// Runs as a service: ``run()`` returns when its task is cancelled, after every delivery claimed has been
/// sent (each is bounded by the APNs request timeout) and recorded; nothing taken is dropped.
public final class Dispatcher: Sendable {
    private let store: any Store
    private let senders: APNsSenders
    private let settings: Configuration.Delivery
    private let time: any TimeSource
    private let logger: Logger
    private let metrics: RelayMetrics
    private let signal = WakeSignal()

    public init(
        store: any Store,
        senders: APNsSenders,
        settings: Configuration.Delivery,
        time: any TimeSource,
        metrics: RelayMetrics,
        logger: Logger
    ) {
        self.store = store
        self.senders = senders
        self.settings = settings
        self.time = time
        self.metrics = metrics
        self.logger = logger
    }

    /// Tells the dispatcher new deliveries are due (after a webhook committed), so it need not wait for
    /// its poll interval.
    public func wake() { signal.signal() }

    /// Claims, sends and records until cancelled; then sends what it claimed, records every result and
    /// returns.
    public func run() async {
        let flushSignal = WakeSignal()
        // Two rounds of sends at most wait in the lanes (what is claimed when a stop comes is still sent before
        // `run()` returns), so the workers never wait for a claim.
        let lanes = DeliveryLanes(
            perAppLimit: min(settings.perAppConcurrency, settings.concurrency),
            capacity: 2 * settings.concurrency,
            drainingSignal: flushSignal
        )
        let results = ResultBuffer(flushAt: max(1, min(settings.batchSize, 500)), signal: flushSignal)
        // Unstructured tasks: cancelling `run()` must not cancel a send in flight (its answer would be lost
        // and the push sent again by the next run) nor the last flush.
        let workers = (0..<max(1, settings.concurrency)).map { _ in
            Task {
                while let job = await lanes.take() {
                    results.append(job.deliveryId, await self.attempt(job))
                    lanes.finish(appId: job.appId)
                }
            }
        }
        let flusher = Task { await self.flushUntilClosed(results, signal: flushSignal) }

        await claimUntilCancelled(into: lanes)
        lanes.close()
        for worker in workers { await worker.value }
        results.close()
        await flusher.value
    }

    /// The claim loop: claims whenever ``DeliveryLanes`` has room and deliveries may be due (the last claim
    /// was full or left apps out, or a webhook woke it, or a poll interval passed); otherwise waits for room
    /// or for a wake. Jobs claimed as it is cancelled are queued all the same, so nothing taken waits for its
    /// lease.
    private func claimUntilCancelled(into lanes: DeliveryLanes) async {
        let poll = Duration.milliseconds(settings.pollIntervalMilliseconds)
        var moreDue = true
        var turn = 0  // which app's turn it is to be claimed first
        while !Task.isCancelled {
            if moreDue, let window = lanes.claimWindow() {
                let apps = await dueApps()
                var room = window.room
                var filled = false, waiting = false
                for index in apps.indices {
                    let appId = apps[(index + turn) % apps.count]
                    let limit = min(room, window.appRoom(appId), settings.batchSize)
                    guard limit > 0 else {
                        waiting = true
                        continue
                    }
                    let jobs = await claim(appId: appId, limit: limit)
                    lanes.add(jobs)
                    room -= jobs.count
                    if jobs.count == limit { filled = true }
                }
                turn += 1
                if filled { continue }
                // Nothing more due, unless for apps whose lanes are full: claimed when those drain.
                moreDue = waiting
            }
            if moreDue {
                await lanes.roomSignal.wait(timeout: poll)
            } else {
                await signal.wait(timeout: poll)
                moreDue = true
            }
        }
    }

    /// The flusher: records results when a batch is full, when a send finishes while nothing is queued, and
    /// at least every poll interval; returns after recording the last ones once ``ResultBuffer/close()`` was
    /// called.
    private func flushUntilClosed(_ results: ResultBuffer, signal: WakeSignal) async {
        let poll = Duration.milliseconds(settings.pollIntervalMilliseconds)
        while true {
            let (batch, closed) = results.takeAll()
            if !batch.isEmpty { await flush(batch) }
            if closed { return }
            await signal.wait(timeout: poll)
        }
    }

    private func dueApps() async -> [String] {
        do {
            return try await store.appsWithDueDeliveries(now: time.now)
        } catch {
            logger.error("finding due deliveries failed", ["error": "\(error)"])
            return []
        }
    }

    private func claim(appId: String, limit: Int) async -> [DeliveryJob] {
        do {
            return try await store.claimDueDeliveries(
                appId: appId,
                now: time.now,
                limit: limit,
                leaseSeconds: settings.leaseSeconds
            )
        } catch {
            logger.error("claiming deliveries failed", ["error": "\(error)", "app.id": appId])
            return []
        }
    }

    /// Records a batch of results. A failure leaves them leased: the lease expires and they are sent again
    /// (at least once).
    private func flush(_ results: [(deliveryId: Int64, outcome: DeliveryOutcome)]) async {
        do {
            try await store.complete(results, at: time.now)
        } catch {
            logger.error("recording delivery results failed", ["error": "\(error)", "count": "\(results.count)"])
        }
    }

    /// One send and its decided outcome. An ExpiredProviderToken answer renews the provider token and sends
    /// once more at once (Apple, "Handling notification responses from APNs").
    private func attempt(_ job: DeliveryJob) async -> DeliveryOutcome {
        let notification = job.apnsNotification
        let log = DeliveryLog(logger: logger, job: job)
        var previousReason: APNsReason?
        while true {
            let sentAt = time.now
            let attempt: DeliveryDecision.Attempt
            do {
                attempt = .answered(try await send(notification, appId: job.appId, environment: job.environment))
            } catch let refused as NotificationError {
                log(.error, "notification refused before sending", ["apns.reason": "\(refused.reason)"])
                metrics.recordOutcome("failed", reason: "\(refused.reason)")
                return .failed(status: nil, reason: "\(refused.reason)")
            } catch {
                log(.warning, "APNs request failed", ["error": "\(error)"])
                attempt = .transportFailure
            }
            let decision = DeliveryDecision.decide(
                attempt,
                sentTo: job.environment,
                registeredEnvironment: job.environment,
                registeredAt: job.deviceRegisteredAt,
                attempts: job.attempts + 1,
                previousReason: previousReason,
                policy: settings.retry,
                random: Double.random(in: 0..<1)
            )
            if case .retry(_, true) = decision, case .answered(let response) = attempt {
                previousReason = response.reason
                senders.renewProviderToken(appId: job.appId)
                continue
            }
            return outcome(of: decision, attempt, job: job, sentAt: sentAt, log: log)
        }
    }

    private func send(
        _ notification: APNsNotification,
        appId: String,
        environment: APNsEnvironment
    ) async throws
        -> APNsResponse
    {
        let sender = try senders.sender(appId: appId, environment: environment)
        let started = ContinuousClock.now
        let response = try await sender.send(notification)
        metrics.recordAPNsLatency(ContinuousClock.now - started)
        return response
    }

    /// What the store records for a decision.
    private func outcome(
        of decision: DeliveryDecision,
        _ attempt: DeliveryDecision.Attempt,
        job: DeliveryJob,
        sentAt: Date,
        log: DeliveryLog
    ) -> DeliveryOutcome {
        let response: APNsResponse? = if case .answered(let r) = attempt { r } else { nil }
        let status = response?.status
        let reason = response?.reason.map { "\($0)" } ?? (response == nil ? "transport" : nil)
        let outcome: DeliveryOutcome
        switch decision {
        case .delivered:
            outcome = .sent(apnsId: response?.apnsId)
            log(.info, "push accepted")
        case .retire(let why, let timestamp):
            // Without an APNs timestamp (BadDeviceToken) the token is known bad as of the send: a device
            // registered again since (e.g. for the other environment) is not retired by this answer.
            outcome = .retired(status: status ?? 0, reason: "\(why)", apnsTimestamp: timestamp ?? sentAt)
            log(.notice, "device token retired", ["apns.reason": "\(why)"])
        case .unlinkTopic(let why):
            outcome = .unlinkTopic(topic: job.topic, status: status ?? 0, reason: "\(why)")
            log(.notice, "device token unlinked from topic", ["apns.reason": "\(why)"])
        case .retry(let delay, _):
            outcome = .retry(at: time.now + delay.timeInterval, status: status, reason: reason)
        case .fail(let failure):
            outcome = .failed(status: status, reason: reason ?? failure.rawValue)
            log(.warning, "delivery failed", ["apns.reason": reason ?? "", "failure": failure.rawValue])
        }
        metrics.recordOutcome(outcome.metricName, reason: reason ?? "none")
        return outcome
    }
}

extension DeliveryOutcome {
    /// The `outcome` label of ``RelayMetrics/recordOutcome(_:reason:)``.
    var metricName: String {
        switch self {
        case .sent: "sent"
        case .retry: "retry"
        case .failed: "failed"
        case .retired: "retired"
        case .unlinkTopic: "unlinked"
        }
    }
}

/// Log lines about one delivery, with its notification id, apns-id and token suffix; the metadata is built
/// only for lines the logger's level lets through (a fan-out logs nothing per device at `warning`).
struct DeliveryLog {
    let logger: Logger
    let job: DeliveryJob

    func callAsFunction(_ level: Logger.Level, _ message: String, _ extra: Logger.Metadata = [:]) {
        guard level >= logger.level else { return }
        var metadata = extra
        metadata["notification.id"] = job.notificationId.lowercasedString
        metadata["token.suffix"] = job.token.suffix
        metadata["apns.id"] = job.apnsId.lowercasedString
        logger.log(level, message, metadata)
    }
}
