import Foundation
import Testing

@testable import RelayCore

/// `apps[].ditto` as a file gives it, its defaults, what `validate()` refuses and what a printout hides.
@Suite struct DittoConfigurationTests {
    static func load(_ ditto: String) throws(Configuration.Invalid) -> Configuration {
        let json = """
            {"apps": [{"id": "chat", "topic": "com.example.chat", "apiKeySHA256": ["\(String(repeating: "a", count: 64))"],
              "ditto": \(ditto)}]}
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ditto-\(UUID().uuidString).json")
        try? Data(json.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try Configuration.load(file: file.path, environment: [:])
    }

    @Test func aFullSettingReadsAndDefaultsFillTheRest() throws {
        let configuration = try Self.load(
            """
            {"kafka": {"bootstrapServers": "kafka-1:9093,kafka-2:9093", "topics": ["ditto.chat"],
                       "p12File": "/etc/relay/ditto.p12", "p12Password": "s3cret-p12", "caFile": "/etc/relay/ca.pem"},
             "ingestSecretSHA256": ["\(String(repeating: "b", count: 64))"],
             "collections": {"users": "chat_users"},
             "httpAPI": {"url": "https://app.cloud.example/", "apiKey": "ditto-api-key"}}
            """
        )
        let ditto = try #require(configuration.apps[0].ditto)
        let kafka = try #require(ditto.kafka)
        #expect(kafka.group(appId: "chat") == "push-relay-chat")
        #expect(kafka.usesTLS && kafka.sessionTimeoutMilliseconds == 10_000)
        #expect(ditto.collections.users == "chat_users" && ditto.collections.messages == "messages")
        #expect(ditto.maxMessageAgeSeconds == 300 && ditto.rule.maxMessageAgeSeconds == 300)
        #expect(ditto.tombstoneRetentionHours == 168)
        let shown = configuration.redactedJSON
        #expect(!shown.contains("s3cret-p12") && !shown.contains("ditto-api-key"))
        #expect(shown.contains("/etc/relay/ditto.p12"))
    }

    @Test func brokerListsAsLibrdkafkaTakesThem() {
        for list in [
            "k:9092", "k1:9092, k2:9093", "SSL://broker.example:9094", "SASL_SSL://k:9093", "[::1]:9092", "broker",
            "10.0.0.1",
        ] {
            #expect(Configuration.Ditto.Kafka.badBroker(in: list) == nil, "\(list)")
        }
        #expect(Configuration.Ditto.Kafka.badBroker(in: "k:9092,k:65536") == "k:65536")
        #expect(Configuration.Ditto.Kafka.badBroker(in: "k:x") == "k:x")
        #expect(Configuration.Ditto.Kafka.badBroker(in: ":9092") == ":9092")
        for bad in ["k1;k2", "k1:9092;k2:9092", "://k1:9092", "::1", "[]:9092", "[::1", "k:90:92", "ké:9092"] {
            #expect(Configuration.Ditto.Kafka.badBroker(in: bad) == bad, "\(bad)")
        }
    }

    @Test func anAppWithoutDittoHasNone() throws {
        #expect(try Configuration.load(file: nil, environment: [:]).apps.allSatisfy { $0.ditto == nil })
    }

    @Test(arguments: [
        (#"{"kafka": {"bootstrapServers": " ", "topics": []}}"#, "apps[0].ditto.kafka.bootstrapServers"),
        (#"{"kafka": {"bootstrapServers": "k:9092", "topics": []}}"#, "apps[0].ditto.kafka.topics: name at least"),
        (#"{"kafka": {"bootstrapServers": "k:9092", "topics": ["a b"]}}"#, "apps[0].ditto.kafka.topics[0]"),
        (#"{"kafka": {"bootstrapServers": "k:9092", "topics": ["t"], "groupId": ""}}"#, "kafka.groupId: must not"),
        (#"{"collections": {"rooms": " "}}"#, "apps[0].ditto.collections.rooms: must not be empty"),
        (#"{"collections": {"dmMessages": "messages"}}"#, "collections.dmMessages: 'messages' is also messages"),
        (#"{"kafka": {"bootstrapServers": "k:9092", "topics": ["t"], "keyFile": "k.pem"}}"#, "keyFile: give both"),
        (
            #"{"kafka": {"bootstrapServers": "k:9092", "topics": ["t"], "p12Password": "x"}}"#,
            "p12Password: only with p12File"
        ),
        (
            #"{"kafka": {"bootstrapServers": "k:9092", "topics": ["t"], "p12File": "d.p12"}}"#,
            "p12Password: required with p12File"
        ),
        (
            #"{"kafka": {"bootstrapServers": "k:9092", "topics": ["t"], "p12File": "d.p12", "p12Password": ""}}"#,
            "p12Password: required with p12File"
        ),
        (
            #"{"kafka": {"bootstrapServers": "not a host list", "topics": ["t"]}}"#,
            "bootstrapServers: 'not a host list' is not host:port"
        ),
        (#"{"kafka": {"bootstrapServers": "a:9092,b:0", "topics": ["t"]}}"#, "bootstrapServers: 'b:0' is not"),
        (#"{"kafka": {"bootstrapServers": "a:9092,", "topics": ["t"]}}"#, "bootstrapServers: '' is not host:port"),
        (#"{"kafka": {"bootstrapServers": "[::1", "topics": ["t"]}}"#, "bootstrapServers: '[::1' is not"),
        (
            #"{"kafka": {"bootstrapServers": "k:9092", "topics": ["t"], "sessionTimeoutMilliseconds": 5999}}"#,
            "sessionTimeoutMilliseconds: must be 6000...300000"
        ),
        (#"{"kafka": {"bootstrapServers": "k:9092", "topics": [".."]}}"#, "topics[0]: a topic name is 1 to 249"),
        (#"{"kafka": {"bootstrapServers": "k:9092", "topics": ["t", "u", "t"]}}"#, "topics[2]: 't' is named twice"),
        (#"{"ingestSecretSHA256": ["abc"]}"#, "apps[0].ditto.ingestSecretSHA256[0]"),
        (#"{"ingestSecretSHA256": ["prk_0a"]}"#, "ingestSecretSHA256[0]: holds a secret itself, not its SHA-256"),
        (#"{"maxMessageAgeSeconds": -1}"#, "apps[0].ditto.maxMessageAgeSeconds"),
        (#"{"maxMessageAgeSeconds": 0}"#, "apps[0].ditto.maxMessageAgeSeconds: must be 1...86400"),
        (#"{"maxBodyBytes": 0}"#, "apps[0].ditto.maxBodyBytes"),
        (#"{"tombstoneRetentionHours": 0}"#, "apps[0].ditto.tombstoneRetentionHours: must be 1...87600"),
        (#"{"tombstoneRetentionHours": 87601}"#, "apps[0].ditto.tombstoneRetentionHours"),
        (#"{"httpAPI": {"url": "http://ditto.example", "apiKey": "k"}}"#, "apps[0].ditto.httpAPI.url"),
    ])
    func badSettingsAreNamed(ditto: String, problem: String) {
        do {
            _ = try Self.load(ditto)
            Issue.record("accepted \(ditto)")
        } catch {
            #expect(error.description.contains(problem), "\(error.description)")
        }
    }

    /// Two apps in one consumer group would split the partitions, each applying the other's events.
    @Test func twoAppsInOneKafkaGroupAreRefused() throws {
        let kafka = #"{"kafka": {"bootstrapServers": "k:9092", "topics": ["cdc"], "groupId": "shared"}}"#
        var configuration = try Self.load(kafka)
        var second = configuration.apps[0]
        second.id = "chat-two"
        second.apiKeySHA256 = [String(repeating: "c", count: 64)]
        configuration.apps.append(second)
        #expect {
            try configuration.validate()
        } throws: { error in
            "\(error)".contains("apps[1].ditto.kafka.groupId: 'shared' is app 'chat''s group too")
        }
        configuration.apps[1].ditto?.kafka?.groupId = nil  // push-relay-chat-two
        try configuration.validate()
    }

    @Test func unknownKeysAreRefused() {
        #expect(throws: Configuration.Invalid.self) { try Self.load(#"{"kafkaa": {}}"#) }
        #expect(throws: Configuration.Invalid.self) {
            try Self.load(#"{"kafka": {"bootstrapServers": "k", "topics": ["t"], "group": "g"}}"#)
        }
    }
}
