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

    /// What librdkafka says besides records, handed over on the polling thread inside
    /// ``poll(timeoutMilliseconds:)``: its errors (brokers that cannot be reached, a refused authorization;
    /// it retries them itself) and its log lines (syslog levels, 0 to 7), instead of lines on stderr.
    public struct Reports {
        public var error: (KafkaError) -> Void
        public var log: (_ level: Int32, _ facility: String, _ line: String) -> Void

        public init(
            error: @escaping (KafkaError) -> Void,
            log: @escaping (_ level: Int32, _ facility: String, _ line: String) -> Void
        ) {
            self.error = error
            self.log = log
        }
    }

    private let client: OpaquePointer
    private let handler: Callbacks
    private var closed = false

    /// Joins nothing yet: ``subscribe(_:)`` does. `settings` need `bootstrap.servers` and `group.id`.
    /// Without `reports`, librdkafka logs its errors to stderr itself.
    public init(
        settings: KafkaSettings,
        reports: Reports? = nil,
        onRebalance: @escaping (Rebalance) -> Void
    ) throws(KafkaError) {
        var settings = settings
        settings["enable.auto.commit"] = "false"
        settings["enable.auto.offset.store"] = "false"
        // Log lines wait on the main queue (which the consumer's poll serves) rather than reaching the
        // callback on librdkafka's own threads.
        if reports != nil { settings["log.queue"] = "true" }
        let configuration = try settings.makeConfiguration()
        handler = Callbacks(onRebalance, reports: reports)
        rd_kafka_conf_set_opaque(configuration, Unmanaged.passUnretained(handler).toOpaque())
        rd_kafka_conf_set_rebalance_cb(configuration, kafkaRebalance)
        if reports != nil {
            rd_kafka_conf_set_error_cb(configuration, kafkaErrorReport)
            rd_kafka_conf_set_log_cb(configuration, kafkaLogReport)
        }
        client = try makeClient(RD_KAFKA_CONSUMER, configuration)
        rd_kafka_poll_set_consumer(client)
        if reports != nil {
            // Only fails without `log.queue`, which is set above: lines never reach the callback elsewhere.
            let forwarded = rd_kafka_set_log_queue(client, nil)
            precondition(forwarded == RD_KAFKA_RESP_ERR_NO_ERROR, "librdkafka's log lines were not forwarded")
        }
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
            guard element.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError(call: "rd_kafka_committed", element.err)
            }
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
        let timeout = timeoutMilliseconds.multipliedReportingOverflow(by: Self.seekTimeoutScale)
        if let error = rd_kafka_seek_partitions(client, list.raw, timeout.overflow ? .max : timeout.partialValue) {
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

    /// What the seek's timeout is multiplied by: librdkafka before 2.1.0 reads it as MICROSECONDS
    /// (confluentinc/librdkafka#4230), so 5 s would wait 5 ms and a seek under load would time out.
    static let seekTimeoutScale: Int32 = rd_kafka_version() < 0x0201_0000 ? 1000 : 1

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

/// The rebalance closure and the reports, reachable from librdkafka's C callbacks through the client's
/// opaque pointer.
private final class Callbacks {
    let handle: (KafkaConsumer.Rebalance) -> Void
    let reports: KafkaConsumer.Reports?

    init(_ handle: @escaping (KafkaConsumer.Rebalance) -> Void, reports: KafkaConsumer.Reports?) {
        self.handle = handle
        self.reports = reports
    }
}

/// librdkafka's error callback (served by the consumer's poll).
private func kafkaErrorReport(
    _ client: OpaquePointer?,
    _ code: Int32,
    _ reason: UnsafePointer<CChar>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let opaque else { return }
    let callbacks = Unmanaged<Callbacks>.fromOpaque(opaque).takeUnretainedValue()
    let message = reason.map { String(cString: $0) } ?? ""
    callbacks.reports?.error(KafkaError(call: "librdkafka", code: code, message: message))
}

/// librdkafka's log callback (forwarded to the main queue, so served by the consumer's poll).
private func kafkaLogReport(
    _ client: OpaquePointer?,
    _ level: Int32,
    _ facility: UnsafePointer<CChar>?,
    _ line: UnsafePointer<CChar>?
) {
    guard let client, let opaque = rd_kafka_opaque(client) else { return }
    let callbacks = Unmanaged<Callbacks>.fromOpaque(opaque).takeUnretainedValue()
    callbacks.reports?.log(level, facility.map { String(cString: $0) } ?? "", line.map { String(cString: $0) } ?? "")
}

/// librdkafka's rebalance callback (eager protocol): tells the handler, then applies the new assignment.
private func kafkaRebalance(
    _ client: OpaquePointer?,
    _ error: rd_kafka_resp_err_t,
    _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let client, let partitions, let opaque else { return }
    let handler = Unmanaged<Callbacks>.fromOpaque(opaque).takeUnretainedValue()
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

    /// The partition's low watermark (the log's start) as last seen in a fetch answer; nil before one came.
    /// Cached by librdkafka: no broker round trip.
    public func seenLowWatermark(_ partition: KafkaTopicPartition) -> Int64? {
        var low: Int64 = -1
        var high: Int64 = -1
        let result = rd_kafka_get_watermark_offsets(client, partition.topic, partition.partition, &low, &high)
        return result == RD_KAFKA_RESP_ERR_NO_ERROR && low >= 0 ? low : nil
    }

    /// The partition's low watermark (its first record's offset), asked of its leader: a broker round trip
    /// of at most `timeoutMilliseconds`.
    public func lowWatermark(_ partition: KafkaTopicPartition, timeoutMilliseconds: Int32) throws(KafkaError) -> Int64 {
        var low: Int64 = -1
        var high: Int64 = -1
        let result = rd_kafka_query_watermark_offsets(
            client,
            partition.topic,
            partition.partition,
            &low,
            &high,
            timeoutMilliseconds
        )
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(call: "rd_kafka_query_watermark_offsets", result)
        }
        return low
    }
}
