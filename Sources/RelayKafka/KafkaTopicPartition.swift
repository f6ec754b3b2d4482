import CRdKafka

/// One partition of one topic.
public struct KafkaTopicPartition: Hashable, Sendable, CustomStringConvertible {
    public let topic: String
    public let partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }
}

/// An `rd_kafka_topic_partition_list_t` built from Swift values, freed when this goes away.
final class KafkaPartitionList {
    let raw: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    /// A list of `partitions`, each with `offset` when given (the next offset to read, as Kafka commits).
    init(_ partitions: [(KafkaTopicPartition, Int64?)]) {
        raw = rd_kafka_topic_partition_list_new(Int32(partitions.count))
        for (partition, offset) in partitions {
            let element = rd_kafka_topic_partition_list_add(raw, partition.topic, partition.partition)!
            if let offset { element.pointee.offset = offset }
        }
    }

    deinit { rd_kafka_topic_partition_list_destroy(raw) }

    /// The partitions a librdkafka-owned list names.
    static func partitions(of list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> [KafkaTopicPartition] {
        (0..<Int(list.pointee.cnt)).map { index in
            let element = list.pointee.elems[index]
            return KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition)
        }
    }
}
