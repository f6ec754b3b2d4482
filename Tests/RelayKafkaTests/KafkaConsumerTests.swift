import RelayKafka
import Testing

/// The consumer against librdkafka's mock cluster: real Kafka protocol on loopback.
@Suite(.serialized) struct KafkaConsumerTests {
    let cluster: KafkaMockCluster
    let topic = "ditto-events"

    init() throws {
        cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic(topic, partitions: 4)
    }

    func settings(group: String) -> KafkaSettings {
        KafkaSettings([
            ("bootstrap.servers", cluster.bootstrapServers), ("group.id", group),
            ("auto.offset.reset", "earliest"), ("session.timeout.ms", "6000"),
            ("heartbeat.interval.ms", "300"), ("log_level", "3"),
        ])
    }

    func produce(_ range: Range<Int>) throws {
        let producer = try KafkaProducer(settings: KafkaSettings([("bootstrap.servers", cluster.bootstrapServers)]))
        for index in range {
            try producer.send(topic: topic, partition: Int32(index % 4), payload: Array("event-\(index)".utf8))
        }
        try producer.flush()
    }

    /// Polls until `count` records came or `attempts` polls of 100 ms passed; returns the payloads.
    func read(
        _ consumer: KafkaConsumer,
        count: Int,
        attempts: Int = 300,
        offsets: inout [KafkaTopicPartition: Int64]
    ) -> [String] {
        var payloads: [String] = []
        for _ in 0..<attempts where payloads.count < count {
            if case .message(let message) = consumer.poll(timeoutMilliseconds: 100) {
                payloads.append(String(decoding: message.payload, as: UTF8.self))
                offsets[message.partition] = message.offset + 1
            }
        }
        return payloads
    }

    @Test func aCommittedGroupResumesAfterItsOffsets() throws {
        try produce(0..<40)
        var offsets: [KafkaTopicPartition: Int64] = [:]
        do {
            let first = try KafkaConsumer(settings: settings(group: "resume")) { _ in }
            try first.subscribe([topic])
            let read = read(first, count: 40, offsets: &offsets)
            #expect(Set(read) == Set((0..<40).map { "event-\($0)" }))
            try first.commit(offsets)
            first.close()
        }
        try produce(40..<48)
        let second = try KafkaConsumer(settings: settings(group: "resume")) { _ in }
        try second.subscribe([topic])
        var later: [KafkaTopicPartition: Int64] = [:]
        let read = read(second, count: 8, offsets: &later)
        #expect(Set(read) == Set((40..<48).map { "event-\($0)" }))
        #expect(try second.committed(Array(offsets.keys)) == offsets)
        second.close()
    }

    @Test func aRevokeLetsTheHandlerCommitBeforeThePartitionsGo() throws {
        try produce(0..<20)
        final class Box {
            var offsets: [KafkaTopicPartition: Int64] = [:]; var consumer: KafkaConsumer?; var events: [String] = []
        }
        let box = Box()
        box.consumer = try KafkaConsumer(settings: settings(group: "revoke")) { rebalance in
            switch rebalance {
            case .assigned(let partitions): box.events.append("assigned \(partitions.count)")
            case .revoked(let partitions):
                box.events.append("revoked \(partitions.count)")
                try? box.consumer?.commit(box.offsets)
            }
        }
        let consumer = try #require(box.consumer)
        try consumer.subscribe([topic])
        let read = read(consumer, count: 20, offsets: &box.offsets)
        #expect(read.count == 20)
        consumer.close()
        #expect(box.events == ["assigned 4", "revoked 4"])
        box.consumer = nil

        let next = try KafkaConsumer(settings: settings(group: "revoke")) { _ in }
        try next.subscribe([topic])
        try produce(20..<24)
        var offsets: [KafkaTopicPartition: Int64] = [:]
        #expect(Set(self.read(next, count: 4, offsets: &offsets)) == Set((20..<24).map { "event-\($0)" }))
        next.close()
    }

    @Test func twoMembersSplitThePartitions() throws {
        let a = try KafkaConsumer(settings: settings(group: "split")) { _ in }
        let b = try KafkaConsumer(settings: settings(group: "split")) { _ in }
        try a.subscribe([topic])
        try b.subscribe([topic])
        var held: (Set<KafkaTopicPartition>, Set<KafkaTopicPartition>) = ([], [])
        for _ in 0..<200 {
            _ = a.poll(timeoutMilliseconds: 50)
            _ = b.poll(timeoutMilliseconds: 50)
            held = (Set(a.assignment()), Set(b.assignment()))
            if held.0.count + held.1.count == 4, !held.0.isEmpty, !held.1.isEmpty { break }
        }
        #expect(held.0.isDisjoint(with: held.1))
        #expect(held.0.union(held.1).count == 4)
        #expect(!held.0.isEmpty && !held.1.isEmpty)
        a.close()
        b.close()
    }

    @Test func badSettingsAreRefusedByName() {
        #expect(throws: KafkaError.self) {
            _ = try KafkaConsumer(settings: KafkaSettings([("no.such.property", "1")])) { _ in }
        }
    }
}
