import APNsMock
import Foundation
import RelayCore
import RelayCrypto
import RelayKafka
import RelaySQLite
import RelayServer
import Testing

/// The relay consuming an app's Ditto CDC topic from librdkafka's mock cluster (the real protocol on
/// loopback) into its store, and pushing to the mock APNs: the same events through Kafka and HTTP at once
/// make one push.
@Suite struct DittoKafkaRelayTests {
    @Test func aMessageOnTheTopicIsPushedOnceEvenWhenHTTPBringsItToo() async throws {
        let cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic("ditto.chat", partitions: 2)
        let bootstrap = cluster.bootstrapServers
        try await withRelayAndMock(configure: { configuration in
            DittoEventsTests.withDitto()(&configuration)
            configuration.apps[0].ditto?.kafka = Configuration.Ditto.Kafka(
                bootstrapServers: bootstrap,
                topics: ["ditto.chat"],
                sessionTimeoutMilliseconds: 6_000
            )
        }) { relay in
            let phone = randomToken()
            try await relay.register(phone, user: "bob")
            let id = UUID().uuidString
            let events = DittoEventsTests.events(messageId: id)
            let producer = try KafkaProducer(settings: KafkaSettings([("bootstrap.servers", bootstrap)]))
            for event in events {
                // One document's events stay on one partition: key by its _id, as Ditto's bridge does.
                let change = event["change"] as? [String: Any]
                let document = change?["newValue"] as? [String: Any]
                try producer.send(
                    topic: "ditto.chat",
                    key: Array((document?["_id"] as? String ?? "").utf8),
                    payload: Array(try JSONSerialization.data(withJSONObject: event))
                )
            }
            try producer.flush()
            // The same events through the HTTP route while the consumer reads them.
            let posted = try await relay.call("POST", "/v1/ditto/events", json: events, key: DittoEventsTests.secret)
            #expect(posted.status == 200, "\(posted.text)")

            let pushes = try await relay.mock.waitForRequests(count: 1)
            #expect(pushes[0].header("apns-collapse-id") == "dittochat-msg-" + id)
            // Wait until the consumer has applied every event (the metric counts them), then check no second push.
            let applied = try await waitForMetric(relay, #"pushrelay_ditto_events_total{app=""#, atLeast: 8)
            #expect(applied >= 8)
            #expect(relay.mock.requests.count == 1)
            #expect(try await DittoRequeryTests.check("ditto-kafka:app0", relay) == "ok")
        }
    }

    /// A Kafka setting librdkafka refuses (a CA file it cannot load) stops the relay from starting, as a
    /// push service's key it cannot load does, naming the app's settings.
    @Test func kafkaSettingsLibrdkafkaRefusesStopTheRelayFromStarting() async throws {
        try await withRelayAndMock(configure: DittoEventsTests.withDitto()) { harness in
            var configuration = harness.configuration
            configuration.apps[0].ditto?.kafka = Configuration.Ditto.Kafka(
                bootstrapServers: "127.0.0.1:1",
                topics: ["ditto.chat"],
                caFile: "/nonexistent/ca.pem",
                sessionTimeoutMilliseconds: 6_000
            )
            let store = try SQLiteStore.temporary()
            #expect {
                _ = try Relay(configuration: configuration, store: store, logger: .disabled())
            } throws: { error in
                "\(error)".contains("apps[0].ditto.kafka")
            }
        }
    }

    @Test func aRequeryRequiredOnTheTopicMakesTheAppsCheckDegraded() async throws {
        let cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic("ditto.chat", partitions: 1)
        let bootstrap = cluster.bootstrapServers
        try await withRelayAndMock(configure: { configuration in
            DittoEventsTests.withDitto()(&configuration)
            configuration.apps[0].ditto?.kafka = Configuration.Ditto.Kafka(
                bootstrapServers: bootstrap,
                topics: ["ditto.chat"],
                sessionTimeoutMilliseconds: 6_000
            )
        }) { relay in
            let producer = try KafkaProducer(settings: KafkaSettings([("bootstrap.servers", bootstrap)]))
            try producer.send(
                topic: "ditto.chat",
                key: [],
                payload: Array(#"{"txnId":3,"type":"requeryRequired"}"#.utf8)
            )
            try producer.flush()
            let counted = try await waitForMetric(relay, #"pushrelay_ditto_requeries_total{app="app0"}"#, atLeast: 1)
            #expect(counted == 1)
            try await DittoRequeryTests.eventually("the check reads degraded") {
                try await DittoRequeryTests.dittoCheck(relay)?.contains("requeryRequired txnId 3") == true
            }
        }
    }

    /// The sum of the samples whose line starts with `prefix` on the admin `/metrics`, once it is at least
    /// `atLeast` (waiting up to 60 s).
    func waitForMetric(_ relay: RelayHarness, _ prefix: String, atLeast: Double) async throws -> Double {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let text = try await relay.adminCall("/metrics").text
            let total = text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
            if total >= atLeast || ContinuousClock.now > deadline { return total }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
