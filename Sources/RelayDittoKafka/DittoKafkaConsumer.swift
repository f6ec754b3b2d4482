import Foundation
import RelayCore
import RelayKafka
import RelayOutbox
import RelayStore
import Synchronization

/// One app's consumer of its Ditto CDC topics: a member of the app's consumer group that applies what it
/// reads to the store's ``RelayStore/DittoMirror`` and commits each partition's offset only after the
/// store has committed the batch (a crash between the two replays events, which the mirror dedupes).
///
/// A dedicated thread polls librdkafka (never the cooperative pool): ``start()`` starts it, ``stop()``
/// finishes the batch in flight, commits, closes the consumer (leaving the group) and returns when the
/// thread has ended. The loop itself is ``DittoKafkaLoop``.
public final class DittoKafkaConsumer: Service {
    /// How a batch is bounded and how long a store failure pauses the partitions.
    public struct Limits: Sendable {
        /// The most records one batch takes.
        public var maxBatchRecords: Int
        /// The record bytes (payloads) past which a batch takes no more: a batch holds its records' events
        /// until it is applied, and a record is as large as the topic lets a writer make it.
        public var maxBatchBytes: Int
        /// How long one batch gathers records, in MILLISECONDS.
        public var maxBatchMilliseconds: Int
        /// The first pause after a store failure, doubled each failure up to ``maxBackoffMilliseconds``.
        public var minBackoffMilliseconds: Int
        public var maxBackoffMilliseconds: Int

        public init(
            maxBatchRecords: Int = 500,
            maxBatchBytes: Int = 8 << 20,
            maxBatchMilliseconds: Int = 100,
            minBackoffMilliseconds: Int = 200,
            maxBackoffMilliseconds: Int = 10_000
        ) {
            // At least one record a batch: a bound of 0 would gather nothing and never poll.
            self.maxBatchRecords = max(1, maxBatchRecords)
            self.maxBatchBytes = max(1, maxBatchBytes)
            self.maxBatchMilliseconds = maxBatchMilliseconds
            self.minBackoffMilliseconds = minBackoffMilliseconds
            self.maxBackoffMilliseconds = maxBackoffMilliseconds
        }
    }

    /// What the loop last published for `/metrics` and tests.
    struct Snapshot: Sendable {
        var partitions: Set<KafkaTopicPartition> = []
        var lag: [KafkaTopicPartition: Int64] = [:]
        var lastRecordAt: Date?
        var paused = false
        /// The librdkafka call that refused to make or subscribe the consumer, until one succeeds.
        var startFailure: String?
        var joined = false
        /// The last error librdkafka reported (its name) and when, until a record or an assignment follows.
        var lastError: (name: String, at: Duration)?
        /// When the apply under way started (``TimeSource/monotonic``), while one is.
        var applyingSince: Duration?
    }

    private struct Lifecycle {
        var started = false
        var stopping = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    public let appId: String
    let settings: KafkaSettings
    let topics: [String]
    let group: String
    let mirror: any DittoMirror
    let applySettings: DittoApplySettings
    let metrics: RelayMetrics
    let time: any TimeSource
    let logger: Logger
    let limits: Limits
    private let lifecycle = Mutex(Lifecycle())
    let snapshot = Mutex(Snapshot())

    public init(
        appId: String,
        kafka: Configuration.Ditto.Kafka,
        mirror: any DittoMirror,
        applySettings: DittoApplySettings,
        metrics: RelayMetrics,
        time: any TimeSource = SystemTimeSource(),
        logger: Logger,
        limits: Limits = Limits()
    ) {
        self.appId = appId
        self.settings = kafka.kafkaSettings(appId: appId)
        self.topics = kafka.topics
        self.group = kafka.group(appId: appId)
        self.mirror = mirror
        self.applySettings = applySettings
        self.metrics = metrics
        self.time = time
        self.logger = logger.with(["app.id": appId, "kafka.group": kafka.group(appId: appId)])
        self.limits = limits
    }

    /// Starts the polling thread (once; later calls do nothing).
    public func start() {
        let first = lifecycle.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.stopping
        }
        guard first else { return }
        let thread = Thread { [self] in
            DittoKafkaLoop(service: self).run()
            let waiters = lifecycle.withLock { state in
                state.finished = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.name = "ditto-kafka"
        thread.start()
    }

    /// Runs as a service: ``start()``, then ``stop()`` once the calling task is cancelled.
    public func run() async {
        start()
        await Task.waitUntilCancelled()
        await stop()
    }

    /// Graceful stop: the batch in flight is applied and committed, the consumer leaves the group; returns
    /// when the thread has ended.
    public func stop() async {
        let running = lifecycle.withLock { state in
            state.stopping = true
            return state.started && !state.finished
        }
        guard running else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lifecycle.withLock { state in
                if !state.finished { state.waiters.append(continuation) }
                return state.finished
            }
            if done { continuation.resume() }
        }
    }

    var isStopping: Bool { lifecycle.withLock { $0.stopping } }

    /// The partitions this member holds now.
    public var partitions: Set<KafkaTopicPartition> { snapshot.withLock { $0.partitions } }

    /// Whether a store failure has paused the partitions (polling goes on).
    public var isPaused: Bool { snapshot.withLock { $0.paused } }

    /// How long an error librdkafka reports shows in ``check()`` when no record or assignment follows it.
    static let errorShownFor = Duration.seconds(60)
    /// How long an apply may wait on the store before ``check()`` says so: the storage probe's own limit.
    static let slowApply = Duration.seconds(2)

    /// The consumer's `/readyz` check (admin listener), `ditto-kafka:<appId>`: `ok` while it reads,
    /// `starting` until it is made and subscribed, `not running (…)` while librdkafka refuses to make or
    /// subscribe it (tried again every ``Limits/maxBackoffMilliseconds``; the log says why), `paused (…)`
    /// while a store failure (or a seek librdkafka refused) pauses its partitions, `waiting (…)` while a batch
    /// has waited on the store over ``slowApply`` (a lock the store waits out, each write queued behind the
    /// others on SQLite's one connection, before the apply fails and pauses), `degraded (…)` for a minute
    /// after librdkafka reports an error (`_TRANSPORT`: brokers that cannot be reached; an authorization
    /// refused) unless a record or an assignment follows, `stopped` from the moment
    /// it is told to stop. Names a librdkafka call, never a path or secret.
    public func check() -> (name: String, value: String) {
        let stopping = lifecycle.withLock { $0.stopping }
        let snapshot = snapshot.withLock { $0 }
        let value =
            if stopping {
                "stopped"
            } else if let call = snapshot.startFailure {
                "not running (\(call) failed)"
            } else if !snapshot.joined {
                "starting"
            } else if snapshot.paused {
                "paused (a batch was not applied; trying again)"
            } else if let since = snapshot.applyingSince, time.monotonic - since >= Self.slowApply {
                "waiting (a batch has waited on the store over \(Self.slowApply.components.seconds) s)"
            } else if let error = snapshot.lastError, time.monotonic - error.at < Self.errorShownFor {
                "degraded (\(error.name))"
            } else {
                "ok"
            }
        return ("ditto-kafka:\(appId)", value)
    }

    /// Gauges for `/metrics` (``RelayOutbox/RelayMetrics/render(scraped:)``): whether the consumer reads (its
    /// readiness check is `ok`: 1, else 0), the consumer lag of each partition held (records behind the high
    /// watermark) and the age of the last record read, in SECONDS.
    public func gauges() -> [ScrapedSample] {
        let reading = check().value == "ok"
        let snapshot = snapshot.withLock { $0 }
        var gauges = [
            ScrapedSample(
                "pushrelay_ditto_kafka_reading",
                .gauge,
                help: "1 while the app's Kafka consumer reads (its /readyz check is ok).",
                labels: [("app", appId)],
                value: reading ? 1 : 0
            )
        ]
        for (partition, lag) in snapshot.lag.sorted(by: { $0.key.description < $1.key.description }) {
            gauges.append(
                ScrapedSample(
                    "pushrelay_ditto_kafka_lag",
                    .gauge,
                    help: "Records behind the partition's end, by app and partition.",
                    labels: [("app", appId), ("topic", partition.topic), ("partition", "\(partition.partition)")],
                    value: Double(lag)
                )
            )
        }
        if let last = snapshot.lastRecordAt {
            gauges.append(
                ScrapedSample(
                    "pushrelay_ditto_last_event_age_seconds",
                    .gauge,
                    help: "Seconds since the app's last Ditto record was read.",
                    labels: [("app", appId)],
                    value: max(0, time.now.timeIntervalSince(last))
                )
            )
        }
        return gauges
    }
}
