import CRdKafka

/// A member of a Kafka consumer group on librdkafka's high-level consumer, with offsets committed only
/// when the caller says so (`enable.auto.commit` is forced off) and the eager rebalance protocol, so a
/// revoke reaches ``Rebalance/revoked(_:)`` before the partitions go and the caller can commit there.
///
/// Not `Sendable`: one thread polls it, and the rebalance handler runs on that thread inside ``poll(timeoutMilliseconds:)``.
public final class KafkaConsumer {
    /// A change of the partitions this member holds.
    public enum Rebalance: Sendable {
        case assigned([KafkaTopicPartition])
        case revoked([KafkaTopicPartition])
    }

    /// What one poll brings: a record, or an error librdkafka reports (most are transient and it retries).
    public enum Event: Sendable {
        case message(KafkaMessage)
        case error(KafkaError)
    }

    private let client: OpaquePointer
    private let handler: RebalanceHandler
    private var closed = false

    /// Joins nothing yet: ``subscribe(_:)`` does. `settings` need `bootstrap.servers` and `group.id`.
    public init(settings: KafkaSettings, onRebalance: @escaping (Rebalance) -> Void) throws(KafkaError) {
        var settings = settings
        settings["enable.auto.commit"] = "false"
        settings["enable.auto.offset.store"] = "false"
        let configuration = try settings.makeConfiguration()
        handler = RebalanceHandler(onRebalance)
        rd_kafka_conf_set_opaque(configuration, Unmanaged.passUnretained(handler).toOpaque())
        rd_kafka_conf_set_rebalance_cb(configuration, kafkaRebalance)
        client = try makeClient(RD_KAFKA_CONSUMER, configuration)
        rd_kafka_poll_set_consumer(client)
    }

    deinit {
        close()
        rd_kafka_destroy(client)
    }

    /// Subscribes to `topics`; partitions arrive through the rebalance handler while polling.
    public func subscribe(_ topics: [String]) throws(KafkaError) {
        let list = KafkaPartitionList(topics.map { (KafkaTopicPartition(topic: $0, partition: -1), nil) })
        let result = rd_kafka_subscribe(client, list.raw)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(call: "rd_kafka_subscribe", result) }
    }

    /// Waits up to `timeoutMilliseconds` for a record or an error; nil when none came.
    public func poll(timeoutMilliseconds: Int32) -> Event? {
        guard let raw = rd_kafka_consumer_poll(client, timeoutMilliseconds) else { return nil }
        defer { rd_kafka_message_destroy(raw) }
        let record = raw.pointee
        guard record.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            return .error(KafkaError(call: "rd_kafka_consumer_poll", record.err))
        }
        let topic = record.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        let payload = record.payload.map {
            Array(UnsafeRawBufferPointer(start: $0, count: record.len))
        }
        let key = record.key.map { Array(UnsafeRawBufferPointer(start: $0, count: record.key_len)) }
        return .message(
            KafkaMessage(
                partition: KafkaTopicPartition(topic: topic, partition: record.partition),
                offset: record.offset,
                key: key,
                payload: payload ?? []
            )
        )
    }

    /// Commits `offsets` (for each partition, the next offset to read) synchronously.
    public func commit(_ offsets: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        guard !offsets.isEmpty else { return }
        let list = KafkaPartitionList(offsets.map { ($0.key, $0.value) })
        let result = rd_kafka_commit(client, list.raw, 0)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(call: "rd_kafka_commit", result) }
    }

    /// The group's committed offsets for `partitions` (absent where none is committed).
    public func committed(
        _ partitions: [KafkaTopicPartition],
        timeoutMilliseconds: Int32 = 5_000
    ) throws(KafkaError)
        -> [KafkaTopicPartition: Int64]
    {
        let list = KafkaPartitionList(partitions.map { ($0, nil) })
        let result = rd_kafka_committed(client, list.raw, timeoutMilliseconds)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(call: "rd_kafka_committed", result) }
        var offsets: [KafkaTopicPartition: Int64] = [:]
        for index in 0..<Int(list.raw.pointee.cnt) {
            let element = list.raw.pointee.elems[index]
            guard element.offset >= 0 else { continue }
            offsets[KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition)] =
                element.offset
        }
        return offsets
    }

    /// Stops fetching `partitions` while staying in the group (polling goes on).
    public func pause(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        let list = KafkaPartitionList(partitions.map { ($0, nil) })
        let result = rd_kafka_pause_partitions(client, list.raw)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(call: "rd_kafka_pause_partitions", result) }
    }

    /// Fetches `partitions` again from where each was paused or sought to.
    public func resume(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        let list = KafkaPartitionList(partitions.map { ($0, nil) })
        let result = rd_kafka_resume_partitions(client, list.raw)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(call: "rd_kafka_resume_partitions", result) }
    }

    /// Moves each partition's fetch position to the given offset (the next record to read).
    /// - Throws: when the call fails, or the seek of any partition does (librdkafka reports those in the
    ///   list, partition by partition).
    public func seek(_ offsets: [KafkaTopicPartition: Int64], timeoutMilliseconds: Int32 = 5_000) throws(KafkaError) {
        guard !offsets.isEmpty else { return }
        let list = KafkaPartitionList(offsets.map { ($0.key, $0.value) })
        if let error = rd_kafka_seek_partitions(client, list.raw, timeoutMilliseconds) {
            let failure = KafkaError(
                call: "rd_kafka_seek_partitions",
                code: 0,
                message: String(cString: rd_kafka_error_string(error))
            )
            rd_kafka_error_destroy(error)
            throw failure
        }
        for index in 0..<Int(list.raw.pointee.cnt) {
            let element = list.raw.pointee.elems[index]
            guard element.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                let partition = KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition)
                throw KafkaError(call: "rd_kafka_seek_partitions \(partition)", element.err)
            }
        }
    }

    /// The partitions this member holds now.
    public func assignment() -> [KafkaTopicPartition] {
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(client, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        return KafkaPartitionList.partitions(of: list)
    }

    /// Leaves the group (a last revoke reaches the handler first, so it can commit); idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        rd_kafka_consumer_close(client)
    }
}

/// The rebalance closure, reachable from librdkafka's C callback through the client's opaque pointer.
private final class RebalanceHandler {
    let handle: (KafkaConsumer.Rebalance) -> Void
    init(_ handle: @escaping (KafkaConsumer.Rebalance) -> Void) { self.handle = handle }
}

/// librdkafka's rebalance callback (eager protocol): tells the handler, then applies the new assignment.
private func kafkaRebalance(
    _ client: OpaquePointer?,
    _ error: rd_kafka_resp_err_t,
    _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let client, let partitions, let opaque else { return }
    let handler = Unmanaged<RebalanceHandler>.fromOpaque(opaque).takeUnretainedValue()
    let named = KafkaPartitionList.partitions(of: partitions)
    switch error {
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
        rd_kafka_assign(client, partitions)
        handler.handle(.assigned(named))
    default:
        handler.handle(.revoked(named))
        rd_kafka_assign(client, nil)
    }
}

extension KafkaConsumer {
    /// The partition's high watermark (the offset the next produced record gets) as last seen in a fetch
    /// answer; nil before one came. Cached by librdkafka: no broker round trip.
    public func highWatermark(_ partition: KafkaTopicPartition) -> Int64? {
        var low: Int64 = -1
        var high: Int64 = -1
        let result = rd_kafka_get_watermark_offsets(client, partition.topic, partition.partition, &low, &high)
        return result == RD_KAFKA_RESP_ERR_NO_ERROR && high >= 0 ? high : nil
    }
}
