/// One record read from a partition: where it sits, its key and its value.
public struct KafkaMessage: Sendable {
    public let partition: KafkaTopicPartition
    public let offset: Int64
    public let key: [UInt8]?
    public let payload: [UInt8]

    public init(partition: KafkaTopicPartition, offset: Int64, key: [UInt8]?, payload: [UInt8]) {
        self.partition = partition
        self.offset = offset
        self.key = key
        self.payload = payload
    }
}
