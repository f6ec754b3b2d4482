import Foundation
import RelayKafka
import RelayTestSupport
import Testing

/// `push-relay mock-kafka` as a process: kcat (Debian's, as docs/ditto-kafka.md uses it) and librdkafka
/// clients produce to and consume from its topics over the real protocol.
@Suite struct MockKafkaCommandTests {
    @Test func kcatAndAConsumerGroupUseTheMocksTopic() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mock = try RelayProcess(
            ["mock-kafka", "--topic", "ditto-events:2", "--topic", "other"],
            outputIn: directory.url,
            name: "mock-kafka"
        )
        let listening = try await mock.line(startingWith: "mock Kafka listening on ")
        #expect(listening.hasSuffix("(topics: ditto-events:2, other:4)"))
        let bootstrap = try #require(listening.split(separator: " ").first.map(String.init))

        let event = #"{"txnId":1,"type":"requeryRequired"}"#
        let eventFile = directory.url.appendingPathComponent("event.json")
        try Data(event.utf8).write(to: eventFile)
        // With files, kcat produces each file as one message.
        let kcat = try ChildProcess(
            "/usr/bin/kcat",
            ["-P", "-b", bootstrap, "-t", "ditto-events", "-p", "1", eventFile.path],
            environment: [:],
            directory: directory.url.path
        )
        #expect(kcat.waitForExit() == .exited(0))

        let consumer = try KafkaConsumer(
            settings: KafkaSettings([
                ("bootstrap.servers", bootstrap), ("group.id", "cli"), ("auto.offset.reset", "earliest"),
                ("log_level", "3"),
            ])
        ) { _ in }
        try consumer.subscribe(["ditto-events"])
        var received: KafkaMessage?
        for _ in 0..<300 where received == nil {
            if case .message(let message) = consumer.poll(timeoutMilliseconds: 100) { received = message }
        }
        let message = try #require(received)
        #expect(message.partition == KafkaTopicPartition(topic: "ditto-events", partition: 1))
        #expect(String(decoding: message.payload, as: UTF8.self) == event)
        consumer.close()

        mock.signal(SIGTERM)
        #expect(try await mock.exitStatus().status == 0)
    }

    @Test(arguments: [["--topic", "bad topic"], ["--topic", "t:0"], ["--topic", "t:x"], ["--brokers", "0"]])
    func badArgumentsAreRefused(arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mock = try RelayProcess(["mock-kafka"] + arguments, outputIn: directory.url, name: "mock-kafka")
        #expect(try await mock.exitStatus().status == 2)
        #expect(mock.stderr.contains("--"))
    }
}
