import Foundation
import RelayCore
import RelayDittoKafka
import RelayKafka
import RelayOutbox
import RelayStore
import Testing

/// librdkafka's mock cluster, shared by the suite (each test uses its own topic and group). Safe to share:
/// the cluster runs on librdkafka's own threads and is only read (its bootstrap list) or told to create a
/// topic, which librdkafka serializes.
final class SharedCluster: @unchecked Sendable {
    static let shared = SharedCluster()
    private let cluster: KafkaMockCluster?
    let bootstrapServers: String

    private init() {
        cluster = try? KafkaMockCluster(brokers: 1)
        bootstrapServers = cluster?.bootstrapServers ?? ""
    }

    func createTopic(_ topic: String, partitions: Int) throws {
        let cluster = try #require(cluster)
        try cluster.createTopic(topic, partitions: partitions)
    }
}

/// The consumer of an app's Ditto CDC topics against librdkafka's mock cluster (the real Kafka protocol on
/// loopback) and a ``RecordingMirror``.
@Suite(.serialized) struct DittoKafkaConsumerTests {
    let cluster = SharedCluster.shared

    func kafka(_ topic: String) -> Configuration.Ditto.Kafka {
        Configuration.Ditto.Kafka(
            bootstrapServers: cluster.bootstrapServers,
            topics: [topic],
            groupId: "group-\(topic)",
            sessionTimeoutMilliseconds: 6_000
        )
    }

    func consumer(
        _ topic: String,
        mirror: RecordingMirror,
        metrics: RelayMetrics = RelayMetrics(appIds: ["chat"]),
        caFile: String? = nil,
        bootstrapServers: String? = nil,
        logger: Logger = .disabled(),
        limits: DittoKafkaConsumer.Limits = .init(minBackoffMilliseconds: 100, maxBackoffMilliseconds: 400)
    ) -> DittoKafkaConsumer {
        var settings = kafka(topic)
        settings.caFile = caFile
        if let bootstrapServers { settings.bootstrapServers = bootstrapServers }
        return DittoKafkaConsumer(
            appId: "chat",
            kafka: settings,
            mirror: mirror,
            applySettings: DittoApplySettings(rule: DittoMessageRule(), sendAs: "t", ttlSeconds: 60, privacy: false),
            metrics: metrics,
            logger: logger,
            limits: limits
        )
    }

    /// One users event per index: txnId = index, `_id` names the partition it is produced to.
    static func event(_ index: Int, partitions: Int) -> [UInt8] {
        Array(
            """
            {"txnId":\(index),"type":"documentChanged","collection":"users",\
            "change":{"method":"upsert","oldValue":null,"newValue":{"_id":"p\(index % partitions)-\(index)"}}}
            """.utf8
        )
    }

    func produce(_ topic: String, _ range: some Sequence<Int>, partitions: Int) throws {
        let producer = try KafkaProducer(settings: KafkaSettings([("bootstrap.servers", cluster.bootstrapServers)]))
        for index in range {
            try producer.send(
                topic: topic,
                partition: Int32(index % partitions),
                payload: Self.event(index, partitions: partitions)
            )
        }
        try producer.flush()
    }

    /// The group's committed offsets (the next record to read) of `topic`'s partitions.
    func committed(_ topic: String, partitions: Int) throws -> [Int32: Int64] {
        let reader = try KafkaConsumer(settings: kafka(topic).kafkaSettings(appId: "reader")) { _ in }
        let offsets = try reader.committed(
            (0..<Int32(partitions)).map { KafkaTopicPartition(topic: topic, partition: $0) }
        )
        return Dictionary(uniqueKeysWithValues: offsets.map { ($0.key.partition, $0.value) })
    }

    /// Waits (at most 30 s, checking every 50 ms) until `condition` holds; returns whether it did.
    func eventually(_ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<600 {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    /// The metric's line when `count` records were counted invalid.
    static func invalidCount(_ count: Int) -> String {
        #"pushrelay_ditto_events_total{app="chat",collection="other",outcome="invalid"} "# + "\(count)"
    }

    /// Whether each partition's events were applied in txnId order (the order they were produced).
    static func inOrderPerPartition(_ events: [DittoEvent]) -> Bool {
        var last: [String: UInt64] = [:]
        for event in events {
            guard case .upsert(_, let document)? = event.change else { return false }
            let partition = String(document.id.prefix { $0 != "-" })
            if let before = last[partition], before >= event.txnId { return false }
            last[partition] = event.txnId
        }
        return true
    }

    @Test func recordsAreAppliedInOrderAndCommittedAfterwards() async throws {
        let topic = "ordered"
        try cluster.createTopic(topic, partitions: 2)
        try produce(topic, 0..<40, partitions: 2)
        let mirror = RecordingMirror()
        let consumer = consumer(topic, mirror: mirror)
        consumer.start()
        #expect(try await eventually { await mirror.applied.count >= 40 })
        #expect(
            try await eventually {
                let lags = consumer.gauges().filter { $0.name == "pushrelay_ditto_kafka_lag" }
                return lags.count == 2 && lags.allSatisfy { $0.value == 0 }
            }
        )
        #expect(consumer.gauges().contains { $0.name == "pushrelay_ditto_last_event_age_seconds" })
        #expect(consumer.gauges().first { $0.name == "pushrelay_ditto_kafka_reading" }?.value == 1)
        await consumer.stop()
        let applied = await mirror.applied
        #expect(applied.map(\.txnId).sorted() == (0..<40).map(UInt64.init))
        #expect(Self.inOrderPerPartition(applied))
        #expect(try committed(topic, partitions: 2) == [0: 20, 1: 20])
    }

    /// A batch takes no more records once their payloads reach its byte limit: it holds their events until
    /// it is applied, and a writer decides how large a record is.
    @Test func aBatchEndsAtItsByteLimit() async throws {
        let topic = "bytes"
        try cluster.createTopic(topic, partitions: 1)
        try produce(topic, 0..<40, partitions: 1)
        let mirror = RecordingMirror()
        let smallest = Self.event(0, partitions: 1).count
        let consumer = consumer(
            topic,
            mirror: mirror,
            limits: .init(maxBatchBytes: 3 * smallest, minBackoffMilliseconds: 100, maxBackoffMilliseconds: 400)
        )
        consumer.start()
        #expect(try await eventually { await mirror.applied.count >= 40 })
        await consumer.stop()
        #expect(await mirror.applied.map(\.txnId) == (0..<40).map(UInt64.init))
        let batches = await mirror.batchSizes
        #expect(batches.allSatisfy { $0 <= 3 }, "\(batches)")
        #expect(try committed(topic, partitions: 1) == [0: 40])
    }

    @Test func aFailingStoreCommitsNothingPausesAndLosesNothing() async throws {
        let topic = "failing"
        try cluster.createTopic(topic, partitions: 2)
        try produce(topic, 0..<20, partitions: 2)
        let mirror = RecordingMirror()
        await mirror.setFailing(true)
        let consumer = consumer(topic, mirror: mirror)
        consumer.start()
        #expect(try await eventually { await mirror.failures >= 2 && consumer.isPaused })
        #expect(try committed(topic, partitions: 2).isEmpty)
        #expect(await mirror.applied.isEmpty)
        #expect(consumer.partitions.count == 2)  // still in the group while paused

        await mirror.setFailing(false)
        #expect(try await eventually { await mirror.applied.count >= 20 })
        try produce(topic, 20..<30, partitions: 2)
        #expect(try await eventually { await mirror.applied.count >= 30 })
        await consumer.stop()
        let applied = await mirror.applied
        #expect(applied.map(\.txnId).sorted() == (0..<30).map(UInt64.init))
        #expect(Self.inOrderPerPartition(applied))
        #expect(try committed(topic, partitions: 2) == [0: 15, 1: 15])
    }

    /// An apply may wait on the store for its whole timeout: the records it holds show as lag meanwhile, the
    /// check says `waiting` past 2 s, and after a failure `paused` until an apply succeeds, not only between the
    /// attempts.
    @Test func aSlowStoreShowsItsRecordsAsLagAndThePauseUntilApplied() async throws {
        let topic = "slow"
        try cluster.createTopic(topic, partitions: 1)
        try produce(topic, 0..<5, partitions: 1)
        let mirror = RecordingMirror()
        let consumer = consumer(topic, mirror: mirror)
        func lag() -> Double? {
            consumer.gauges().first { $0.name == "pushrelay_ditto_kafka_lag" }?.value
        }
        consumer.start()
        #expect(try await eventually { await mirror.applied.count >= 5 && lag() == 0 })

        await mirror.hold()
        try produce(topic, 5..<15, partitions: 1)
        #expect(try await eventually { await mirror.waiting == 1 && lag() == 10 })
        // Past the storage probe's limit the check says the batch waits, before the apply fails.
        #expect(try await eventually { consumer.check().value == "waiting (a batch has waited on the store over 2 s)" })
        #expect(consumer.gauges().first { $0.name == "pushrelay_ditto_kafka_reading" }?.value == 0)

        // The held apply fails; the one after the back-off waits again, the check saying paused meanwhile.
        await mirror.setFailing(true)
        await mirror.release(holding: true)
        #expect(
            try await eventually {
                let (holds, waiting) = (await mirror.holds, await mirror.waiting)
                return holds >= 2 && waiting == 1
            }
        )
        #expect(consumer.isPaused)
        #expect(consumer.check().value.hasPrefix("paused"))
        #expect(consumer.gauges().first { $0.name == "pushrelay_ditto_kafka_reading" }?.value == 0)

        await mirror.setFailing(false)
        await mirror.release(holding: false)
        #expect(try await eventually { await mirror.applied.count >= 15 && !consumer.isPaused && lag() == 0 })
        await consumer.stop()
        #expect(try committed(topic, partitions: 1) == [0: 15])
    }

    @Test func poisonRecordsAreCountedInvalidAndCommittedPast() async throws {
        let topic = "poison"
        try cluster.createTopic(topic, partitions: 1)
        try produce(topic, 0..<5, partitions: 1)
        let producer = try KafkaProducer(settings: KafkaSettings([("bootstrap.servers", cluster.bootstrapServers)]))
        try producer.send(topic: topic, partition: 0, payload: Array(#"{"txnId":"secret text""#.utf8))
        // Well-formed to a lenient parser, which would apply it as txnId 101: a key twice is not strict JSON.
        let twice = String(decoding: Self.event(100, partitions: 1), as: UTF8.self)
            .replacingOccurrences(of: #"{"txnId":100,"#, with: #"{"txnId":100,"txnId":101,"#)
        try producer.send(topic: topic, partition: 0, payload: Array(twice.utf8))
        try producer.flush()
        try produce(topic, 5..<10, partitions: 1)
        let mirror = RecordingMirror()
        let metrics = RelayMetrics(appIds: ["chat"])
        let consumer = consumer(topic, mirror: mirror, metrics: metrics)
        consumer.start()
        #expect(try await eventually { await mirror.applied.count >= 10 })
        await consumer.stop()
        #expect(await mirror.applied.map(\.txnId) == (0..<10).map(UInt64.init))
        #expect(try committed(topic, partitions: 1) == [0: 12])
        #expect(metrics.render().contains(Self.invalidCount(2)))
    }

    /// Records the log dropped before the group read them (as a topic's retention does; the mock keeps 5 MB
    /// a partition): counted `lost`, logged as an error naming how many, and the partition read on from its
    /// earliest record kept.
    @Test func recordsTheLogDroppedUnreadAreCountedLost() async throws {
        let topic = "retention"
        let partition = KafkaTopicPartition(topic: topic, partition: 0)
        try cluster.createTopic(topic, partitions: 1)
        try produce(topic, 0..<3, partitions: 1)
        let early = RecordingMirror()
        let first = consumer(topic, mirror: early)
        first.start()
        #expect(try await eventually { await early.applied.count >= 3 })
        await first.stop()
        #expect(try committed(topic, partitions: 1) == [0: 3])
        // Three events never read, then records large enough that the log drops its oldest, those three among
        // them, then two events more.
        try produce(topic, 3..<6, partitions: 1)
        try produceLarge(topic, count: 4)
        try produce(topic, 6..<8, partitions: 1)
        let reader = try KafkaConsumer(settings: kafka(topic).kafkaSettings(appId: "reader")) { _ in }
        let earliest = try reader.lowWatermark(partition, timeoutMilliseconds: 5_000)
        #expect(earliest > 6, "the log kept a record of 3..<6: \(earliest)")

        let mirror = RecordingMirror()
        let metrics = RelayMetrics(appIds: ["chat"])
        let lines = MemoryLogHandler()
        let consumer = consumer(topic, mirror: mirror, metrics: metrics, logger: Logger(label: "t", handler: lines))
        consumer.start()
        #expect(try await eventually { await mirror.applied.map(\.txnId).contains(7) })
        await consumer.stop()
        #expect(await mirror.applied.map(\.txnId) == [6, 7])
        let lost = #"pushrelay_ditto_events_total{app="chat",collection="other",outcome="lost"} "# + "\(earliest - 3)"
        #expect(metrics.render().contains(lost), "\(metrics.render())")
        let line = try #require(lines.entries.first { $0.message.hasPrefix("Kafka records lost") })
        #expect(line.level == .error && line.metadata["kafka.lost"] == "\(earliest - 3)", "\(line)")
    }

    /// Records read while the store was away, and dropped by the log before the pause ended: counted `lost`
    /// from the first one not applied.
    @Test func recordsTheLogDropsDuringAPauseAreCountedLost() async throws {
        let topic = "retention-paused"
        try cluster.createTopic(topic, partitions: 1)
        try produce(topic, 0..<3, partitions: 1)
        let mirror = RecordingMirror()
        await mirror.setFailing(true)
        let metrics = RelayMetrics(appIds: ["chat"])
        let consumer = consumer(topic, mirror: mirror, metrics: metrics)
        consumer.start()
        #expect(try await eventually { await mirror.failures >= 2 && consumer.isPaused })
        try produceLarge(topic, count: 4)
        try produce(topic, 3..<5, partitions: 1)
        let reader = try KafkaConsumer(settings: kafka(topic).kafkaSettings(appId: "reader")) { _ in }
        let earliest = try reader.lowWatermark(
            KafkaTopicPartition(topic: topic, partition: 0),
            timeoutMilliseconds: 5_000
        )
        #expect(earliest > 3, "the log kept a record of 0..<3: \(earliest)")

        await mirror.setFailing(false)
        #expect(try await eventually { await mirror.applied.map(\.txnId).contains(4) })
        await consumer.stop()
        #expect(await mirror.applied.map(\.txnId) == [3, 4])
        let lost = #"pushrelay_ditto_events_total{app="chat",collection="other",outcome="lost"} "# + "\(earliest)"
        #expect(metrics.render().contains(lost), "\(metrics.render())")
    }

    /// Sends `count` records of 2 MB to `topic`'s partition 0, each in a batch of its own: the mock cluster
    /// keeps 5 MB a partition, so the log drops its oldest batches.
    func produceLarge(_ topic: String, count: Int) throws {
        let producer = try KafkaProducer(
            settings: KafkaSettings([
                ("bootstrap.servers", cluster.bootstrapServers), ("message.max.bytes", "10000000"),
            ])
        )
        for _ in 0..<count {
            try producer.send(
                topic: topic,
                partition: 0,
                payload: Array(repeating: UInt8(ascii: "x"), count: 2_000_000)
            )
            try producer.flush()
        }
    }

    @Test func anEventTheStoreRefusesForItsDataIsSkippedNotRetried() async throws {
        let topic = "refused"
        try cluster.createTopic(topic, partitions: 1)
        try produce(topic, 0..<10, partitions: 1)
        let mirror = RecordingMirror()
        await mirror.setRefused([4])
        let metrics = RelayMetrics(appIds: ["chat"])
        let consumer = consumer(topic, mirror: mirror, metrics: metrics)
        consumer.start()
        #expect(try await eventually { await mirror.applied.count >= 9 })
        try produce(topic, 10..<12, partitions: 1)
        #expect(try await eventually { await mirror.applied.count >= 11 })
        #expect(!consumer.isPaused)
        await consumer.stop()
        #expect(await mirror.applied.map(\.txnId) == (0..<12).filter { $0 != 4 }.map(UInt64.init))
        #expect(try committed(topic, partitions: 1) == [0: 12])
        #expect(metrics.render().contains(Self.invalidCount(1)))
    }

    /// A batch's unreadable message document is logged where it was read and by its field, never its content.
    @Test func anUnreadableMessageIsLoggedWhereItWasRead() async throws {
        let topic = "unreadable"
        try cluster.createTopic(topic, partitions: 1)
        try produce(topic, 0..<6, partitions: 1)
        let mirror = RecordingMirror()
        await mirror.setUnreadable([3])
        let lines = MemoryLogHandler()
        let consumer = consumer(topic, mirror: mirror, logger: Logger(label: "test", handler: lines))
        consumer.start()
        #expect(try await eventually { await mirror.applied.count >= 6 })
        await consumer.stop()
        let skipped = lines.entries.filter { $0.message.hasPrefix("Ditto message document skipped") }
        #expect(skipped.count == 1, "\(lines.entries.map(\.message))")
        let line = try #require(skipped.first)
        #expect(line.level == .warning)
        #expect(line.metadata["kafka.offset"] == "3" && line.metadata["ditto.field"] == "text", "\(line.metadata)")
        #expect(line.metadata["ditto.unreadable"] == "1", "\(line.metadata)")
        #expect(line.metadata["kafka.partition"]?.contains(topic) == true, "\(line.metadata)")
    }

    /// A consumer librdkafka will not make (here, a CA file it cannot load) says so in its check and tries
    /// again, so an operator's mended file is taken without a restart; once made and subscribed, its check
    /// is `ok`, or `degraded (…)` while librdkafka reports errors.
    @Test func aConsumerThatCannotStartSaysSoAndTriesAgain() async throws {
        let topic = "unstartable"
        try cluster.createTopic(topic, partitions: 1)
        let ca = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem")
        let consumer = consumer(topic, mirror: RecordingMirror(), caFile: ca.path)
        #expect(consumer.check() == ("ditto-kafka:chat", "starting"))
        consumer.start()
        #expect(try await eventually { consumer.check().value == "not running (rd_kafka_new failed)" })
        // The operator puts the file in place: the next try makes and subscribes the consumer.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../fixtures/tls/ca.pem")
        try FileManager.default.copyItem(at: fixture, to: ca)
        defer { try? FileManager.default.removeItem(at: ca) }
        // Made and subscribed: TLS to the mock's plaintext listener then fails, which the check shows too.
        #expect(
            try await eventually {
                let value = consumer.check().value
                return value == "ok" || value.hasPrefix("degraded (")
            },
            "\(consumer.check())"
        )
        await consumer.stop()
        #expect(consumer.check().value == "stopped")
    }

    /// Brokers that cannot be reached show in the check (librdkafka's error name), not as `ok`, and
    /// librdkafka's own lines are lines of the relay's log, not text on stderr.
    @Test func unreachableBrokersReadDegradedAndLibrdkafkaLogsThroughTheLogger() async throws {
        let lines = MemoryLogHandler()
        let consumer = consumer(
            "nowhere",
            mirror: RecordingMirror(),
            bootstrapServers: "127.0.0.1:1",
            logger: Logger(label: "test", handler: lines)
        )
        consumer.start()
        #expect(try await eventually { consumer.check().value.hasPrefix("degraded (_") }, "\(consumer.check())")
        // The broker's connection failure, as an error line with librdkafka's facility and text.
        #expect(
            try await eventually {
                lines.entries.contains {
                    $0.message == "librdkafka" && $0.level >= .error && $0.metadata["kafka.facility"]?.isEmpty == false
                        && $0.metadata["kafka.log"]?.contains("127.0.0.1:1") == true
                }
            },
            "\(lines.entries.map(\.metadata))"
        )
        await consumer.stop()
    }

    @Test func aSurvivorTakesThePartitionsFromTheCommittedOffsets() async throws {
        let topic = "shared"
        try cluster.createTopic(topic, partitions: 4)
        let mirror = RecordingMirror()
        let first = consumer(topic, mirror: mirror)
        let second = consumer(topic, mirror: mirror)
        first.start()
        second.start()
        try produce(topic, 0..<40, partitions: 4)
        #expect(
            try await eventually {
                !first.partitions.isEmpty && !second.partitions.isEmpty
                    && first.partitions.union(second.partitions).count == 4
            }
        )
        #expect(first.partitions.isDisjoint(with: second.partitions))
        #expect(try await eventually { Set(await mirror.applied.map(\.txnId)).count >= 40 })

        await first.stop()
        try produce(topic, 40..<80, partitions: 4)
        #expect(try await eventually { second.partitions.count == 4 })
        #expect(try await eventually { Set(await mirror.applied.map(\.txnId)).count >= 80 })
        await second.stop()
        let applied = await mirror.applied
        #expect(Set(applied.map(\.txnId)) == Set((0..<80).map(UInt64.init)))
        // Duplicates at most one uncommitted batch (none after a graceful stop, which commits).
        #expect(applied.count - 80 <= DittoKafkaConsumer.Limits().maxBatchRecords)
        #expect(try committed(topic, partitions: 4) == [0: 20, 1: 20, 2: 20, 3: 20])
    }

    /// A partition paused by an outage, taken away during it and given back after it ended is fetched again:
    /// librdkafka keeps a partition's pause across the two.
    @Test func aPartitionPausedByAnOutageIsReadAgainWhenItComesBack() async throws {
        let topic = "paused-away"
        try cluster.createTopic(topic, partitions: 4)
        let mirror = RecordingMirror()
        await mirror.setFailing(true)
        let first = consumer(topic, mirror: mirror)
        first.start()
        try produce(topic, 0..<20, partitions: 4)
        #expect(try await eventually { await mirror.failures >= 1 && first.partitions.count == 4 })
        // A second member joins: the first gives up every partition (eager protocol) while it is paused.
        let second = consumer(topic, mirror: mirror)
        second.start()
        #expect(try await eventually { first.partitions.isEmpty })
        // The outage ends while the partitions are away, and the first's back-off ends before they come back
        // (the mock's coordinator gives them out about 5 s later, the back-off is at most 0.4 s).
        await mirror.setFailing(false)
        #expect(try await eventually { first.partitions.isEmpty && !first.isPaused })
        #expect(
            try await eventually {
                !first.partitions.isEmpty && first.partitions.union(second.partitions).count == 4
            }
        )
        try produce(topic, 20..<40, partitions: 4)
        #expect(try await eventually { Set(await mirror.applied.map(\.txnId)).count >= 40 })
        await first.stop()
        await second.stop()
        #expect(Set(await mirror.applied.map(\.txnId)) == Set((0..<40).map(UInt64.init)))
        #expect(try committed(topic, partitions: 4) == [0: 10, 1: 10, 2: 10, 3: 10])
    }

    /// The lag shows for each partition held from its assignment on, before the relay commits anything on
    /// it: from the group's committed offset, or a partition's start when the group never committed there.
    @Test func theLagShowsForEachPartitionHeldBeforeItsFirstCommit() async throws {
        let topic = "lag-at-start"
        try cluster.createTopic(topic, partitions: 2)
        // Partition 0: 10 records committed, then 5 more. Partition 1: 3 records, never committed.
        let mirror = RecordingMirror()
        let reader = consumer(topic, mirror: mirror)
        reader.start()
        try produce(topic, (0..<10).map { $0 * 2 }, partitions: 2)
        #expect(try await eventually { (try? committed(topic, partitions: 2)) == [0: 10] })
        await reader.stop()
        try produce(topic, (10..<15).map { $0 * 2 }, partitions: 2)
        try produce(topic, [1, 3, 5], partitions: 2)

        let failing = RecordingMirror()
        await failing.setFailing(true)
        let paused = consumer(topic, mirror: failing)
        paused.start()
        func lag(_ partition: Int) -> Double? {
            paused.gauges().first { $0.labels.contains { $0 == ("partition", "\(partition)") } }?.value
        }
        #expect(try await eventually { lag(0) == 5 && lag(1) == 3 })
        #expect(try committed(topic, partitions: 2) == [0: 10])
        await paused.stop()
    }
}
