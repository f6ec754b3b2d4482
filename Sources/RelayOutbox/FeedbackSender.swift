import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import RelayStore

/// Sends the feedback outbox: POSTs each retired token of an app with a `feedbackURL` there as a
/// ``DeadTokenView`` (`Content-Type: application/json`, signed with `X-PushRelay-Signature` when the app has
/// a `webhookSecret`), retrying with exponential back-off and jitter until a 2xx or until the item expires
/// (``Settings/lifetimeSeconds`` after the retirement), when it is dropped and logged.
///
/// The queue is durable: ``Store/complete(_:at:)`` writes each item in the transaction that retires the
/// device, and only apps that have a `feedbackURL` (``FeedbackPolicy``, set by ``Relay/start()``) get items.
/// Items of an app that no longer has a `feedbackURL` are dropped at once.
///
/// Runs as a service: ``run()`` returns when its task is cancelled, after the POSTs in flight finished (each
/// bounded by ``Settings/requestTimeoutMilliseconds``) and were recorded; everything else stays queued. It
/// holds no claimed item unsent (a batch is claimed only to be POSTed at once, all of it), so a stop has
/// nothing to hand back. Its claims are leased to `owner`, the relay's instance id.
public final class FeedbackSender: Service {
    /// How feedback is sent. Defaults suit production.
    public struct Settings: Sendable, Equatable {
        /// Back-off between attempts; `maxAttempts` is not used (the lifetime bounds the retries). Default
        /// 5 s doubling to at most 10 min, with equal jitter.
        public var retry = RetryPolicy(maxAttempts: Int.max, baseDelayMilliseconds: 5000, maxDelayMilliseconds: 600_000)
        /// An item is dropped this many SECONDS after the retirement. Default 86,400 (24 h).
        public var lifetimeSeconds = 86_400
        /// How often the queue is checked, in MILLISECONDS. Default 1000.
        public var pollIntervalMilliseconds = 1000
        /// One POST, connect included, in MILLISECONDS. Default 10,000.
        public var requestTimeoutMilliseconds = 10_000
        /// Connect plus TLS handshake, in MILLISECONDS. Default 5000.
        public var connectTimeoutMilliseconds = 5000
        /// A claimed item not recorded within this many SECONDS is claimed again. Default 60.
        public var leaseSeconds = 60
        /// Items claimed, and POSTs in flight, at a time. Default 16.
        public var batchSize = 16
        public init() {}
    }

    private let owner: String
    private let store: any Store
    private let apps: [String: Configuration.App]
    private let settings: Settings
    private let time: any TimeSource
    private let metrics: RelayMetrics
    private let logger: Logger
    private let signal = WakeSignal()

    /// - Parameter owner: the instance id the claims are leased to.
    public init(
        owner: String,
        store: any Store,
        apps: [Configuration.App],
        settings: Settings,
        time: any TimeSource,
        metrics: RelayMetrics,
        logger: Logger
    ) {
        self.owner = owner
        self.store = store
        self.apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.settings = settings
        self.time = time
        self.metrics = metrics
        self.logger = logger
    }

    /// The policy the store needs so it queues feedback for exactly the apps with a `feedbackURL`.
    public var policy: FeedbackPolicy {
        FeedbackPolicy(
            appIds: Set(apps.values.filter { $0.feedbackURL != nil }.map(\.id)),
            lifetimeSeconds: settings.lifetimeSeconds
        )
    }

    /// Checks the queue now instead of at the next poll.
    public func wake() { signal.signal() }

    /// Loops until cancelled: claim a batch, POST each, record the outcomes.
    public func run() async {
        let poll = Duration.milliseconds(settings.pollIntervalMilliseconds)
        while !Task.isCancelled {
            let jobs: [FeedbackJob]
            do {
                jobs = try await store.claimDueFeedback(
                    now: time.now,
                    limit: settings.batchSize,
                    leaseSeconds: settings.leaseSeconds,
                    owner: owner
                )
            } catch {
                logger.storeCallFailed("claiming feedback failed", error)
                jobs = []
            }
            if jobs.isEmpty {
                await signal.wait(timeout: poll)
                continue
            }
            let results = await withTaskGroup(of: (feedbackId: Int64, outcome: FeedbackOutcome).self) { group in
                for job in jobs {
                    // Unstructured: cancelling run() must not cut a POST short (its answer would be lost).
                    group.addTask { await Task { (job.feedbackId, await self.deliver(job)) }.value }
                }
                var results: [(feedbackId: Int64, outcome: FeedbackOutcome)] = []
                for await result in group { results.append(result) }
                return results
            }
            do {
                try await store.completeFeedback(results, at: time.now)
            } catch {
                // Left leased: the lease expires and the items are sent again (at least once).
                logger.error("recording feedback results failed", ["error": "\(error)", "count": results.count])
            }
        }
    }

    /// One attempt and its outcome.
    private func deliver(_ job: FeedbackJob) async -> FeedbackOutcome {
        let log = logger.with(["app.id": job.appId, "token.suffix": job.token.suffix])
        guard let app = apps[job.appId], let url = app.feedbackURL else {
            log.warning("feedback dropped: the app has no feedbackURL")
            metrics.recordFeedback("dropped")
            return .dropped
        }
        let now = time.now
        guard now < job.expiresAt else { return expired(job, log: log) }
        let body: Data
        do { body = try DeadTokenView(job).encoded() } catch {
            log.error("feedback dropped: cannot encode it", ["error": "\(error)"])
            metrics.recordFeedback("dropped")
            return .dropped
        }
        var headers = [("Content-Type", "application/json")]
        if let secret = app.webhookSecret {
            let signature = WebhookSignature.sign(body, secret: secret, timestamp: Int(now.timeIntervalSince1970))
            headers.append((WebhookSignature.header, signature))
        }
        let status: Int?
        let failure: String?
        do {
            let answer = try await OutboundHTTP.post(
                url: url,
                body: body,
                headers: headers,
                timeout: .milliseconds(settings.requestTimeoutMilliseconds),
                connectTimeout: .milliseconds(settings.connectTimeoutMilliseconds)
            )
            if (200..<300).contains(answer) {
                log.info("feedback delivered", ["http.status": answer, "attempts": job.attempts + 1])
                metrics.recordFeedback("delivered")
                return .delivered
            }
            (status, failure) = (answer, "HTTP \(answer)")
        } catch {
            (status, failure) = (nil, "\(error.code)")
        }
        let delay = settings.retry.delay(afterFailures: job.attempts + 1, random: Double.random(in: 0..<1))
        let next = time.now + delay.timeInterval
        guard next < job.expiresAt else { return expired(job, log: log, lastError: failure) }
        log.warning(
            "feedback POST failed, will retry",
            [
                "error": failure ?? "", "attempts": job.attempts + 1,
                "retry_in_ms": Int(delay.timeInterval * 1000),
            ]
        )
        metrics.recordFeedback("retry")
        return .retry(at: next, status: status, error: failure)
    }

    private func expired(_ job: FeedbackJob, log: Logger, lastError: String? = nil) -> FeedbackOutcome {
        log.warning(
            "feedback dropped: expired before a 2xx answer",
            ["attempts": job.attempts + (lastError == nil ? 0 : 1), "error": lastError ?? ""]
        )
        metrics.recordFeedback("expired")
        return .dropped
    }
}
