import RelayCLI
import RelayCore
import RelayKafka

/// `push-relay mock-kafka`: librdkafka's mock cluster (real Kafka protocol, plaintext, loopback) until
/// SIGINT/SIGTERM/SIGHUP, with the topics asked for, for kcat, process tests and the bench. Debian's kcat
/// cannot host one.
enum MockKafkaCommand {
    static let help = """
        usage: push-relay mock-kafka [options]
          --brokers N                  brokers in the cluster (default 1)
          --topic NAME[:PARTITIONS]    create a topic (default partitions 4); repeatable
        prints 'mock Kafka listening on HOST:PORT,…' (the bootstrap.servers to give clients, on ports of its
        own choosing), then waits; it keeps only the last few MB of each partition, in memory
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: ["help"],
            options: ["brokers", "topic"],
            repeatable: ["topic"],
            positional: 0
        )
        if arguments.flag("help") {
            say(help)
            return 0
        }
        let brokers = try arguments.positiveInteger("brokers", default: 1)
        guard brokers <= 16 else { throw Arguments.Problem(description: "--brokers must be at most 16") }
        let topics = try arguments.values("topic").map(topic)
        let signals = Signals()
        let cluster = try KafkaMockCluster(brokers: brokers)
        for (name, partitions) in topics { try cluster.createTopic(name, partitions: partitions) }
        let named = topics.map { "\($0.name):\($0.partitions)" }.joined(separator: ", ")
        say("mock Kafka listening on \(cluster.bootstrapServers) (topics: \(named.isEmpty ? "none" : named))")
        // The cluster runs on librdkafka's threads; it stops when released, after the group.
        try await MockLifecycle.run("mock-kafka", signals: signals) {}
        say("mock Kafka stopped")
        withExtendedLifetime(cluster) {}
        return 0
    }

    /// `NAME` or `NAME:PARTITIONS` (1 to 1000 partitions).
    static func topic(_ text: String) throws(Arguments.Problem) -> (name: String, partitions: Int) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        guard !name.isEmpty, name.count <= 249,
            name.isIdentifierText
        else {
            throw Arguments.Problem(description: "--topic '\(text)': a topic name is letters, digits, '.', '_', '-'")
        }
        guard parts.count == 2 else { return (name, 4) }
        guard let partitions = Int(parts[1]), (1...1_000).contains(partitions) else {
            throw Arguments.Problem(description: "--topic '\(text)': partitions must be 1 to 1000")
        }
        return (name, partitions)
    }
}
