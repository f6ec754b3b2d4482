import Foundation
import RelayCore
import RelayKafka
import RelayStore
import RelayStrictJSON

/// The polling loop of one ``DittoKafkaConsumer``, confined to its thread (librdkafka calls the rebalance
/// handler on it, inside `poll`): gathers a bounded batch, applies it, then commits `last offset + 1` per
/// partition. A store failure pauses every partition held, keeps polling (the member stays in the group),
/// and after a back-off seeks each partition back to its first uncommitted record and resumes.
///
/// librdkafka orders the operations on a partition (its own fetcher start, its pause for a rebalance, and
/// the application's pause, resume and seek) by a version each takes before it is queued; the one served
/// first voids any of a lower version queued after it, with no error. A pause or resume made while
/// librdkafka starts the partition's fetcher (just after an assignment) can so be lost, or lose the start,
/// and a resume made as a rebalance begins can be lost: the partition stays held and is never read. So the
/// loop pauses, resumes and seeks only partitions whose fetchers run (that delivered a record since they
/// were given), lazily when they deliver one during a pause, and resumes once more, in the revoke, every
/// partition it paused since it was given (librdkafka keeps a pause across a revoke and a later
/// assignment), when librdkafka's own operations on the partitions are queued before it.
final class DittoKafkaLoop {
    /// Records read and not yet committed: the events in order, and per partition the first and the next
    /// offset.
    private struct Batch {
        /// An event and where it was read (for a log line about it).
        typealias Read = (event: DittoEvent, partition: KafkaTopicPartition, offset: Int64)
        /// The events read, in order.
        var events: [Read] = []
        var invalid = 0
        var first: [KafkaTopicPartition: Int64] = [:]
        var next: [KafkaTopicPartition: Int64] = [:]
        var records = 0
        /// The records' payload bytes.
        var bytes = 0
    }

    private let service: DittoKafkaConsumer
    private let thread = Thread.current
    private var consumer: KafkaConsumer?
    private var assigned: Set<KafkaTopicPartition> = []
    private var current = Batch()
    /// Offsets applied in the store and not yet committed (a commit that failed is retried).
    private var uncommitted: [KafkaTopicPartition: Int64] = [:]
    /// Each partition's next offset to read as last committed (for the lag).
    private var position: [KafkaTopicPartition: Int64] = [:]
    /// Partitions held whose committed offsets are not read yet: read by ``publish()``, outside the rebalance
    /// handler (a broker round trip), from ``positionReadAt`` on.
    private var positionUnread: Set<KafkaTopicPartition> = []
    /// When ``publish()`` reads the partitions in ``positionUnread``: at once after an assignment,
    /// ``positionRetry`` after a read failed.
    private var positionReadAt: Duration = .zero
    /// While paused: where each partition reads again on resume.
    private var rewind: [KafkaTopicPartition: Int64] = [:]
    /// Each partition's offset after the last record read since it was given: a record further on than the
    /// next may follow records the log dropped unread (``checkForLostRecords(_:from:at:)``).
    private var expectedNext: [KafkaTopicPartition: Int64] = [:]
    /// The partitions resumed after a pause whose records wait to be applied again: the readiness check says
    /// `paused` until an apply succeeds (each attempt may hold the thread for the store's whole timeout), or
    /// until they are taken away.
    private var reapplying: Set<KafkaTopicPartition> = []
    /// Partitions held that delivered a record since they were given: their fetchers run.
    private var fetching: Set<KafkaTopicPartition> = []
    /// Partitions this loop paused and has not resumed.
    private var paused: Set<KafkaTopicPartition> = []
    /// Partitions this loop paused since they were given, resumed or not: resumed again in the revoke.
    private var pausedSinceGiven: Set<KafkaTopicPartition> = []
    private var pausedUntil: Duration?
    private var backoff: Int
    private var errorsLogged = ErrorLogLimiter()
    /// Whoever writes to the topics decides how many records are invalid: their lines are a trickle too.
    private var invalidLogged = ErrorLogLimiter(interval: .seconds(1))
    /// librdkafka's own lines, its errors apart so that other lines never crowd them out.
    private var librdkafkaErrorsLogged = ErrorLogLimiter(interval: .seconds(1))
    private var librdkafkaLogged = ErrorLogLimiter(interval: .seconds(1))

    init(service: DittoKafkaConsumer) {
        self.service = service
        backoff = service.limits.minBackoffMilliseconds
    }

    private var logger: Logger { service.logger }

    func run() {
        guard start() else { return }
        logger.info("joining the Kafka group", ["kafka.topics": service.topics.joined(separator: ",")])
        while !service.isStopping {
            // First, so the lag shows for partitions just given before their first batch is applied, and
            // stays current (partitions taken away included) while the store is away.
            publish()
            if let until = pausedUntil, service.time.monotonic < until {
                pollWhilePaused()
                continue
            }
            if pausedUntil != nil { resumeAll() }
            gather()
            // Again before the apply, which may wait on the store: the records just read show as lag meanwhile.
            publish()
            process()
            reportSuppressedInvalid()
        }
        reportSuppressedInvalid(force: true)
        consumer?.close()
        consumer = nil
        service.snapshot.withLock { $0 = DittoKafkaConsumer.Snapshot() }
        logger.info("left the Kafka group")
    }

    /// Makes the consumer and subscribes it to the topics; while librdkafka refuses (a key file it cannot
    /// load, a property it does not take) says so in the consumer's readiness check and tries again every
    /// ``DittoKafkaConsumer/Limits/maxBackoffMilliseconds``, so a mended file is taken without a restart.
    /// - Returns: false when the consumer stopped first.
    private func start() -> Bool {
        while !service.isStopping {
            do throws(KafkaError) {
                let reports = KafkaConsumer.Reports(
                    error: { [unowned self] in report($0) },
                    log: { [unowned self] in log(level: $0, facility: $1, line: $2) }
                )
                let consumer = try KafkaConsumer(settings: service.settings, reports: reports) { [unowned self] in
                    rebalanced($0)
                }
                self.consumer = consumer
                try consumer.subscribe(service.topics)
                service.snapshot.withLock {
                    $0.startFailure = nil
                    $0.joined = true
                }
                return true
            } catch {
                consumer?.close()
                consumer = nil
                service.snapshot.withLock { $0.startFailure = error.call }
                logger.error(
                    "cannot start the Kafka consumer; trying again",
                    ["error": error.description, "retry.milliseconds": service.limits.maxBackoffMilliseconds]
                )
            }
            let until = service.time.monotonic + .milliseconds(service.limits.maxBackoffMilliseconds)
            while !service.isStopping, service.time.monotonic < until { Thread.sleep(forTimeInterval: 0.1) }
        }
        return false
    }

    /// Polls into ``current`` until it holds ``DittoKafkaConsumer/Limits/maxBatchRecords`` records or
    /// ``DittoKafkaConsumer/Limits/maxBatchBytes`` bytes of them, or
    /// ``DittoKafkaConsumer/Limits/maxBatchMilliseconds`` have passed.
    private func gather() {
        guard let consumer else { return }
        let limits = service.limits
        let deadline = service.time.monotonic + .milliseconds(limits.maxBatchMilliseconds)
        while current.records < limits.maxBatchRecords, current.bytes < limits.maxBatchBytes, !service.isStopping,
            pausedUntil == nil
        {
            let left = deadline - service.time.monotonic
            guard left > .zero else { break }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            switch consumer.poll(timeoutMilliseconds: max(1, milliseconds)) {
            case .message(let record)?: add(record)
            case .error(let error)?: report(error)
            case nil: continue
            }
        }
    }

    private func add(_ record: KafkaMessage) {
        service.snapshot.withLock {
            $0.lastRecordAt = service.time.now
            $0.lastError = nil
        }
        checkForLostRecords(record.partition, from: expectedNext[record.partition], at: record.offset)
        expectedNext[record.partition] = record.offset + 1
        do {
            let event = try DittoEvent.decode(record.payload, strictSyntax: StrictJSON.requestBodyProblem)
            current.events.append((event, record.partition, record.offset))
        } catch {
            // Counted and committed past: a record that can never be read must not stall its partition.
            current.invalid += 1
            logInvalid("invalid Ditto event skipped", record.partition, record.offset, ["error": error.reason])
        }
        fetching.insert(record.partition)
        current.records += 1
        current.bytes += record.payload.count
        if current.first[record.partition] == nil { current.first[record.partition] = record.offset }
        current.next[record.partition] = record.offset + 1
    }

    /// Applies ``current`` and commits its offsets; on a store failure pauses instead. A batch the store
    /// refuses for its data is applied again an event at a time (``applySeparately(_:)``).
    private func process() {
        var batch = current
        current = Batch()
        guard batch.records > 0 else { return }
        if !batch.events.isEmpty {
            switch apply(batch.events.map(\.event)) {
            case .success(let counts):
                report(counts, of: batch.events)
            case .failure(let error) where Self.refusesData(error):
                guard let refused = applySeparately(batch) else { return }
                batch.invalid += refused
            case .failure(let error):
                pause(rewindingTo: batch.first, because: error)
                return
            }
        }
        if batch.invalid > 0 {
            var counts = DittoApplyCounts()
            counts.outcomes["other"] = [.invalid: batch.invalid]
            service.metrics.recordDittoEvents(counts, app: service.appId)
        }
        backoff = service.limits.minBackoffMilliseconds
        if !reapplying.isEmpty { showApplied() }
        uncommitted.merge(batch.next) { max($0, $1) }
        commit()
    }

    /// Ends the `paused` the readiness check shows: the store took a batch, or what waited for it went.
    private func showApplied() {
        reapplying = []
        service.snapshot.withLock { $0.paused = false }
    }

    /// Applies `events` in one store transaction, from this thread.
    private func apply(_ events: [DittoEvent]) -> Result<DittoApplyCounts, any Error> {
        let service = self.service
        let now = service.time.now
        service.snapshot.withLock { $0.applyingSince = service.time.monotonic }
        defer { service.snapshot.withLock { $0.applyingSince = nil } }
        return blockingAwait {
            try await service.mirror.applyDittoEvents(
                events,
                appId: service.appId,
                settings: service.applySettings,
                at: now
            )
        }
    }

    /// Whether the store refused events for what they hold (``RelayStore/StoreError/refusesData``).
    private static func refusesData(_ error: any Error) -> Bool { (error as? StoreError)?.refusesData == true }

    /// Reports the counts of applied `events`, and logs where the first unreadable message among them was read
    /// and how many there were (`ditto.unreadable`).
    private func report(_ counts: DittoApplyCounts, of events: some RandomAccessCollection<Batch.Read>) {
        counts.report(app: service.appId, settings: service.applySettings, metrics: service.metrics, logger: logger)
        guard let unreadable = counts.unreadable else { return }
        let read = events[events.index(events.startIndex, offsetBy: unreadable.event)]
        let many = counts.outcomes.values.reduce(0) { $0 + ($1[.invalid] ?? 0) }
        logInvalid(
            "Ditto message document skipped: a field a push needs is missing or not what DittoChat writes",
            read.partition,
            read.offset,
            ["ditto.field": unreadable.field, "ditto.unreadable": many]
        )
    }

    /// Logs a line about an event counted `invalid`, at most one a second (whoever writes to the topics
    /// decides how many there are): where it was read and `fields`, never its content.
    private func logInvalid(
        _ message: String,
        _ partition: KafkaTopicPartition,
        _ offset: Int64,
        _ fields: Logger.Metadata
    ) {
        guard let suppressed = invalidLogged.admit(at: service.time.monotonic) else { return }
        let location: Logger.Metadata = [
            "kafka.partition": partition.description, "kafka.offset": offset, "kafka.suppressed": suppressed,
        ]
        logger.warning(message, location.merging(fields) { first, _ in first })
    }

    /// Logs how many invalid events ``logInvalid(_:_:_:_:)`` left out since its last line, once its interval
    /// has passed (or at the end, `force`): a burst of them ends with a count, not only the first line.
    private func reportSuppressedInvalid(force: Bool = false) {
        guard let suppressed = invalidLogged.flush(at: service.time.monotonic, force: force) else { return }
        logger.warning("more Kafka events counted invalid and skipped", ["kafka.suppressed": suppressed])
    }

    /// Applies a batch the store refused for its data an event at a time: an event the store refuses so is
    /// logged and skipped, as a record that cannot be read is, so that no event can stall its partition.
    /// - Returns: how many events were skipped; nil when another failure paused the partitions (the events
    ///   applied before it are read again and found duplicates).
    private func applySeparately(_ batch: Batch) -> Int? {
        var refused = 0
        for read in batch.events {
            switch apply([read.event]) {
            case .success(let counts):
                report(counts, of: [read])
            case .failure(let error) where Self.refusesData(error):
                refused += 1
                logger.warning(
                    "Ditto event refused by the store; skipped",
                    [
                        "kafka.partition": read.partition.description, "kafka.offset": read.offset,
                        "error": "\(error)",
                    ]
                )
            case .failure(let error):
                pause(rewindingTo: batch.first, because: error)
                return nil
            }
        }
        return refused
    }

    /// Commits what was applied for the partitions held, synchronously.
    private func commit() {
        guard let consumer else { return }
        let offsets = uncommitted.filter { assigned.contains($0.key) }
        guard !offsets.isEmpty else { return }
        do {
            try consumer.commit(offsets)
            uncommitted = [:]
            position.merge(offsets) { max($0, $1) }
        } catch {
            logKafkaError(error)
        }
    }

    private func pause(rewindingTo first: [KafkaTopicPartition: Int64], because error: any Error) {
        logger.warning(
            "the store is unavailable; pausing the partitions",
            ["error": "\(error)", "retry.milliseconds": backoff]
        )
        rewind.merge(first) { min($0, $1) }
        pausedUntil = service.time.monotonic + .milliseconds(backoff)
        backoff = min(backoff * 2, service.limits.maxBackoffMilliseconds)
        pausePartitions(assigned.intersection(fetching))
        service.snapshot.withLock { $0.paused = true }
    }

    /// Pauses those of `partitions` not paused yet (each one whose fetcher runs).
    private func pausePartitions(_ partitions: Set<KafkaTopicPartition>) {
        let pausing = partitions.subtracting(paused)
        guard let consumer, !pausing.isEmpty else { return }
        do {
            try consumer.pause(Array(pausing))
            paused.formUnion(pausing)
            pausedSinceGiven.formUnion(pausing)
        } catch {
            logKafkaError(error)
        }
    }

    /// Keeps the member in the group while paused; a record still on its way is read again on resume, and
    /// its partition (one given during the pause, or whose fetcher was not running at the pause) is paused
    /// now that its fetcher runs.
    private func pollWhilePaused() {
        switch consumer?.poll(timeoutMilliseconds: 100) {
        case .message(let record)?:
            rewind[record.partition] = min(rewind[record.partition] ?? record.offset, record.offset)
            fetching.insert(record.partition)
            pausePartitions([record.partition])
        case .error(let error)?: report(error)
        case nil: break
        }
    }

    /// Seeks each partition back to its first uncommitted record and resumes those paused; when librdkafka
    /// refuses either, the partitions stay paused and both are tried again after the back-off (resumed
    /// from where a failed seek left them, a partition would skip the records it read before the pause).
    private func resumeAll() {
        pausedUntil = nil
        guard let consumer else { return }
        do {
            let sought = rewind.filter { assigned.contains($0.key) }
            try consumer.seek(sought)
            // Read on from there: records the log dropped meanwhile show as a gap after it.
            expectedNext.merge(sought) { $1 }
            try consumer.resume(Array(paused))
            paused = []
        } catch {
            logKafkaError(error)
            pausedUntil = service.time.monotonic + .milliseconds(backoff)
            return
        }
        reapplying = Set(rewind.keys).intersection(assigned)
        rewind = [:]
        if reapplying.isEmpty { showApplied() }
    }

    /// Called inside `poll` (and `close`) on this thread. On a revoke (the eager protocol takes every
    /// partition) the batch being gathered is applied and everything applied is committed before the
    /// partitions go.
    private func rebalanced(_ rebalance: KafkaConsumer.Rebalance) {
        precondition(Thread.current == thread, "the rebalance handler runs on the consumer's thread")
        switch rebalance {
        case .assigned(let partitions):
            // No pause or resume here: librdkafka starts the fetchers meanwhile (during a pause the partitions
            // are paused as they deliver, in pollWhilePaused).
            assigned = Set(partitions)
            logger.info(
                "holding Kafka partitions",
                ["kafka.partitions": partitions.map(\.description).sorted().joined(separator: ",")]
            )
            positionUnread = Set(partitions)
            positionReadAt = .zero
        case .revoked(let partitions):
            if pausedUntil == nil { process() }
            commit()
            // librdkafka keeps a pause across the revoke and a later assignment, where the partition would
            // never be fetched. Lifted now, after librdkafka's own pause for the rebalance (queued before this
            // handler runs): also for partitions resumed since, whose resume the rebalance's start may have
            // voided.
            let resuming = pausedSinceGiven.intersection(partitions)
            if !resuming.isEmpty {
                do { try consumer?.resume(Array(resuming)) } catch { logKafkaError(error) }
            }
            logger.info(
                "giving up Kafka partitions",
                ["kafka.partitions": partitions.map(\.description).sorted().joined(separator: ",")]
            )
            current = Batch()
            assigned.subtract(partitions)
            for partition in partitions {
                uncommitted[partition] = nil
                rewind[partition] = nil
                expectedNext[partition] = nil
                position[partition] = nil
                fetching.remove(partition)
                paused.remove(partition)
                pausedSinceGiven.remove(partition)
            }
            positionUnread.subtract(partitions)
            if !reapplying.isEmpty {
                reapplying.subtract(partitions)
                if reapplying.isEmpty && pausedUntil == nil { showApplied() }
            }
        }
        service.snapshot.withLock {
            $0.partitions = assigned
            // Partitions given mean the brokers answer; taken ones (as lost, after an outage) do not.
            if case .assigned = rebalance { $0.lastError = nil }
        }
    }

    /// The lag of each partition held: librdkafka's cached high watermark less where the group reads it from.
    private func publish() {
        guard let consumer else { return }
        if !positionUnread.isEmpty, service.time.monotonic >= positionReadAt { readCommittedOffsets(consumer) }
        var lag: [KafkaTopicPartition: Int64] = [:]
        for partition in assigned {
            guard let high = consumer.highWatermark(partition), let next = position[partition] else { continue }
            lag[partition] = max(0, high - next)
        }
        service.snapshot.withLock { $0.lag = lag }
    }

    /// Reads where the partitions in ``positionUnread`` are read from: their committed offsets, or for one
    /// the group never committed on its start (`auto.offset.reset` earliest). What cannot be read now is
    /// read again ``positionRetry`` later; a commit meanwhile gives the position too. Each read is a broker
    /// round trip on the polling thread, so each waits at most ``positionReadMilliseconds``.
    private func readCommittedOffsets(_ consumer: KafkaConsumer) {
        let timeout = Self.positionReadMilliseconds
        do {
            let committed = try consumer.committed(Array(positionUnread), timeoutMilliseconds: timeout)
            position.merge(committed) { max($0, $1) }
            positionUnread.subtract(committed.keys)
            for partition in positionUnread {
                position[partition] = max(
                    position[partition] ?? .min,
                    try consumer.lowWatermark(partition, timeoutMilliseconds: timeout)
                )
                positionUnread.remove(partition)
            }
        } catch {
            logKafkaError(error)
            positionReadAt = service.time.monotonic + Self.positionRetry
        }
    }

    /// The longest one read of ``readCommittedOffsets(_:)`` holds the polling thread.
    static let positionReadMilliseconds: Int32 = 500
    /// How long after a failed read of ``readCommittedOffsets(_:)`` it is tried again.
    static let positionRetry = Duration.seconds(30)

    /// Whether records of `partition` before `offset`, the one just read, were dropped by the log unread: when
    /// a committed offset (or the last record read) lies behind the log's start, librdkafka reads on from the
    /// earliest record kept (`auto.offset.reset` earliest) and says nothing the relay can count. So the first
    /// record read after the partition is given is compared with the group's committed offset (a broker round
    /// trip, once per assignment), and a later one that skips more than one offset (a transaction's marker
    /// takes one; compaction any number) with `expected`; where they differ, with the log's start as the fetch
    /// that brought the record saw it. The records from the expected offset to the log's start are counted
    /// `lost` and logged as an error.
    private func checkForLostRecords(_ partition: KafkaTopicPartition, from expected: Int64?, at offset: Int64) {
        guard let consumer else { return }
        let timeout = Self.positionReadMilliseconds
        let from: Int64
        if let expected {
            guard offset > expected + 1 else { return }
            from = expected
        } else {
            guard let committed = try? consumer.committed([partition], timeoutMilliseconds: timeout)[partition],
                offset > committed
            else { return }
            from = committed
        }
        guard
            let earliest = consumer.seenLowWatermark(partition)
                ?? (try? consumer.lowWatermark(partition, timeoutMilliseconds: timeout)),
            earliest > from
        else { return }
        let lost = earliest - from
        logger.error(
            "Kafka records lost: the log dropped them before they were read",
            [
                "kafka.topic": partition.topic, "kafka.partition": partition.partition, "kafka.offset": from,
                "kafka.earliest": earliest, "kafka.lost": lost,
            ]
        )
        var counts = DittoApplyCounts()
        counts.outcomes["other"] = [.lost: Int(lost)]
        service.metrics.recordDittoEvents(counts, app: service.appId)
    }

    /// An error librdkafka reports: logged (a trickle), and shown in the consumer's check.
    private func report(_ error: KafkaError) {
        precondition(Thread.current == thread, "librdkafka's errors are served by the consumer's poll")
        service.snapshot.withLock { $0.lastError = (error.name, service.time.monotonic) }
        logKafkaError(error)
    }

    /// One of librdkafka's log lines, as a line of the relay's log at its syslog level (0-2 critical,
    /// 3 error, 4 warning, 5 notice, 6 info, 7 debug); at most one error line a second, and one other.
    private func log(level: Int32, facility: String, line: String) {
        precondition(Thread.current == thread, "librdkafka's log lines are served by the consumer's poll")
        let mapped: Logger.Level =
            switch level {
            case ...2: .critical
            case 3: .error
            case 4: .warning
            case 5: .notice
            case 6: .info
            default: .debug
            }
        guard mapped >= logger.level else { return }
        let admitted =
            mapped >= .error
            ? librdkafkaErrorsLogged.admit(at: service.time.monotonic)
            : librdkafkaLogged.admit(at: service.time.monotonic)
        guard let suppressed = admitted else { return }
        logger.log(
            mapped,
            "librdkafka",
            ["kafka.facility": facility, "kafka.log": line, "kafka.suppressed": suppressed]
        )
    }

    private func logKafkaError(_ error: KafkaError) {
        guard let suppressed = errorsLogged.admit(at: service.time.monotonic) else { return }
        logger.error("Kafka error", ["error": error.description, "kafka.suppressed": suppressed])
    }
}

/// At most one line per interval: how librdkafka's retried errors (a broker down) stay a trickle in logs.
struct ErrorLogLimiter {
    let interval: Duration
    private var last: Duration?
    private var suppressed = 0

    init(interval: Duration = .seconds(10)) { self.interval = interval }

    /// The number of errors suppressed since the last line when this one may be logged, else nil.
    mutating func admit(at now: Duration) -> Int? {
        if let last, now - last < interval {
            suppressed += 1
            return nil
        }
        last = now
        defer { suppressed = 0 }
        return suppressed
    }

    /// The errors suppressed since the last line, once there are some and the interval has passed (or
    /// `force`), counted as a line of their own; else nil.
    mutating func flush(at now: Duration, force: Bool = false) -> Int? {
        guard suppressed > 0, force || last.map({ now - $0 >= interval }) ?? true else { return nil }
        last = now
        defer { suppressed = 0 }
        return suppressed
    }
}
