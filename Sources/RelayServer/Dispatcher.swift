import Foundation
import RelayAPNs
import RelayCore
import RelayStore
import Synchronization

/// Sends the outbox: takes due deliveries from the store, sends each to APNs with bounded concurrency,
/// decides each token's fate from the answer (``DeliveryDecision``) and records it in batches.
///
/// Runs as a service: ``run()`` returns when its task is cancelled, after the deliveries in flight have
/// finished (each is bounded by the APNs request timeout) and been recorded; nothing taken is dropped.
public final class Dispatcher: Sendable {
    private let store: any Store
    private let senders: APNsSenders
    private let settings: Configuration.Delivery
    private let time: any TimeSource
    private let logger: Logger
    private let metrics: RelayMetrics
    private let signal = WakeSignal()
    /// The senders already made, by "app/environment": a lock instead of an actor hop on every send.
    private let clients = Mutex<[String: APNsClient]>([:])

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

    private enum Event: Sendable {
        case finished(appId: String, deliveryId: Int64, outcome: DeliveryOutcome)
        case claimed(jobs: [DeliveryJob], limit: Int)
        case flushed
        case woken
    }

    /// Loops until cancelled: claim, send, record. Claims and records run beside the sends (the store works
    /// on its own thread), so the pipe to APNs never waits for SQLite.
    public func run() async {
        let poll = Duration.milliseconds(settings.pollIntervalMilliseconds)
        let refill = max(1, min(settings.batchSize, settings.concurrency) / 4)
        let flushAt = max(1, min(settings.batchSize, 256))
        await withTaskGroup(of: Event.self) { group in
            var inFlight = 0
            var inFlightByApp: [String: Int] = [:]
            var waiting = false, claiming = false, flushing = false
            var moreDue = true  // the last claim was full, or something woke us since
            var results: [(deliveryId: Int64, outcome: DeliveryOutcome)] = []

            func startFlush() {
                guard !flushing, !results.isEmpty else { return }
                flushing = true
                let batch = results
                results.removeAll(keepingCapacity: true)
                group.addTask {
                    await self.flush(batch)
                    return .flushed
                }
            }

            while true {
                let stopping = Task.isCancelled
                let room = settings.concurrency - inFlight
                if !stopping && !claiming && moreDue && (inFlight == 0 || room >= refill) {
                    let saturated = inFlightByApp.filter { $0.value >= settings.perAppConcurrency }.map(\.key)
                    // One claim may be all one app's: take no more than the fullest app still open may add,
                    // so no app goes over its limit (saturated apps are left out of the claim). Sends only
                    // finish while the claim runs, so the limit still holds when it returns.
                    let busiest = inFlightByApp.values.filter { $0 < settings.perAppConcurrency }.max() ?? 0
                    let limit = min(settings.batchSize, room, settings.perAppConcurrency - busiest)
                    claiming = true
                    startFlush()
                    group.addTask {
                        .claimed(jobs: await self.claim(limit: limit, excludingApps: saturated), limit: limit)
                    }
                }
                if stopping && inFlight == 0 && !claiming && !flushing {
                    if results.isEmpty { break }
                    startFlush()
                }
                if !stopping && !waiting {
                    waiting = true
                    let signal = self.signal
                    group.addTask {
                        await signal.wait(timeout: poll)
                        return .woken
                    }
                }
                guard let event = await group.next() else { break }
                switch event {
                case .woken:
                    waiting = false
                    moreDue = true
                    startFlush()  // results never wait longer than the poll interval
                case .claimed(let jobs, let limit):
                    claiming = false
                    moreDue = jobs.count == limit
                    // Claimed while stopping: started all the same, so nothing taken waits for its lease.
                    for job in jobs {
                        inFlight += 1
                        inFlightByApp[job.appId, default: 0] += 1
                        // An unstructured task: cancelling `run()` must not cancel a send in flight (its
                        // answer would be lost and the push sent again by the next run).
                        group.addTask { await Task { await self.attempt(job) }.value }
                    }
                case .flushed:
                    flushing = false
                    if results.count >= flushAt || (inFlight == 0 && !results.isEmpty) { startFlush() }
                case .finished(let appId, let id, let outcome):
                    inFlight -= 1
                    inFlightByApp[appId, default: 1] -= 1
                    if inFlightByApp[appId] == 0 { inFlightByApp[appId] = nil }
                    results.append((id, outcome))
                    if results.count >= flushAt || inFlight == 0 { startFlush() }
                }
            }
            group.cancelAll()
        }
    }

    private func claim(limit: Int, excludingApps: [String]) async -> [DeliveryJob] {
        do {
            return try await store.claimDueDeliveries(
                now: time.now,
                limit: limit,
                leaseSeconds: settings.leaseSeconds,
                excludingApps: excludingApps
            )
        } catch {
            logger.error("claiming deliveries failed", ["error": "\(error)"])
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
    private func attempt(_ job: DeliveryJob) async -> Event {
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
                return .finished(
                    appId: job.appId,
                    deliveryId: job.deliveryId,
                    outcome: .failed(status: nil, reason: "\(refused.reason)")
                )
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
                await senders.renewProviderToken(appId: job.appId)
                continue
            }
            return .finished(
                appId: job.appId,
                deliveryId: job.deliveryId,
                outcome: outcome(of: decision, attempt, job: job, sentAt: sentAt, log: log)
            )
        }
    }

    private func send(
        _ notification: APNsNotification,
        appId: String,
        environment: APNsEnvironment
    ) async throws
        -> APNsResponse
    {
        let key = appId + "/" + environment.rawValue
        let sender: APNsClient
        if let cached = clients.withLock({ $0[key] }) {
            sender = cached
        } else {
            sender = try await senders.sender(appId: appId, environment: environment)
            clients.withLock { $0[key] = sender }
        }
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

extension Duration {
    /// The duration in SECONDS, as Foundation counts time.
    var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
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
        metadata["notification.id"] = job.notificationId.uuidString.lowercased()
        metadata["token.suffix"] = job.token.suffix
        metadata["apns.id"] = job.apnsId.uuidString.lowercased()
        logger.log(level, message, metadata)
    }
}
