import CRdKafka

/// librdkafka's own mock cluster (`rdkafka_mock.h`): brokers on loopback inside this process that speak
/// the real Kafka protocol (produce, fetch, consumer groups, offset commits), for tests, the bench and
/// `push-relay mock-kafka`. Plaintext only. Not `Sendable`: create, use and drop it on one thread.
public final class KafkaMockCluster {
    private let host: OpaquePointer
    private let cluster: OpaquePointer

    /// Starts `brokers` mock brokers on ephemeral loopback ports.
    public init(brokers: Int = 1) throws(KafkaError) {
        host = try makeClient(RD_KAFKA_PRODUCER, try KafkaSettings([("log_level", "3")]).makeConfiguration())
        guard let cluster = rd_kafka_mock_cluster_new(host, Int32(brokers)) else {
            rd_kafka_destroy(host)
            throw KafkaError(call: "rd_kafka_mock_cluster_new", code: 0, message: "the mock cluster did not start")
        }
        self.cluster = cluster
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)
        rd_kafka_destroy(host)
    }

    /// The `bootstrap.servers` list clients connect with (`127.0.0.1:port,…`).
    public var bootstrapServers: String { String(cString: rd_kafka_mock_cluster_bootstraps(cluster)) }

    /// Creates `topic` with `partitions` partitions (replication factor 1).
    public func createTopic(_ topic: String, partitions: Int) throws(KafkaError) {
        let result = rd_kafka_mock_topic_create(cluster, topic, Int32(partitions), 1)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(call: "rd_kafka_mock_topic_create", result) }
    }
}
