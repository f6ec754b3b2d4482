import CRdKafka

/// A librdkafka producer: what the mock cluster's callers and tests write Ditto events with.
/// Not `Sendable`: one thread uses it.
public final class KafkaProducer {
    private let client: OpaquePointer

    /// `settings` need `bootstrap.servers`.
    public init(settings: KafkaSettings) throws(KafkaError) {
        client = try makeClient(RD_KAFKA_PRODUCER, try settings.makeConfiguration())
    }

    deinit { rd_kafka_destroy(client) }

    /// Queues one record for `topic` (on `partition`, or by the key's hash when nil); ``flush(timeoutMilliseconds:)``
    /// waits until the brokers have it.
    public func send(topic: String, partition: Int32? = nil, key: [UInt8]? = nil, payload: [UInt8]) throws(KafkaError) {
        let result = payload.withUnsafeBytes { value in
            (key ?? []).withUnsafeBytes { keyBytes in
                crdkafka_produce(
                    client,
                    topic,
                    partition ?? crdkafka_partition_unassigned(),
                    value.baseAddress,
                    value.count,
                    key == nil ? nil : keyBytes.baseAddress,
                    key?.count ?? 0
                )
            }
        }
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(call: "rd_kafka_producev", result) }
        rd_kafka_poll(client, 0)
    }

    /// Waits until every queued record is acknowledged, or throws when `timeoutMilliseconds` pass first.
    public func flush(timeoutMilliseconds: Int32 = 10_000) throws(KafkaError) {
        let result = rd_kafka_flush(client, timeoutMilliseconds)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(call: "rd_kafka_flush", result) }
    }
}
