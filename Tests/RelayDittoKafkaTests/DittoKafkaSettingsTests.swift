import Foundation
import RelayCore
import RelayDittoKafka
import RelayKafka
import Testing

/// The librdkafka properties an app's Kafka settings become, and what `config check` proves with them:
/// librdkafka loads the CA and the certificate (or opens the .p12) when the handle is made. The mock
/// cluster speaks plaintext only, so the TLS handshake itself is not tested here.
@Suite struct DittoKafkaSettingsTests {
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/\(name)").path
    }

    func kafka(
        ca: String? = nil,
        certificate: String? = nil,
        key: String? = nil,
        p12: String? = nil,
        password: String? = nil
    ) -> Configuration.Ditto.Kafka {
        Configuration.Ditto.Kafka(
            bootstrapServers: "127.0.0.1:9",
            topics: ["rooms", "messages"],
            caFile: ca,
            certificateFile: certificate,
            keyFile: key,
            p12File: p12,
            p12Password: password,
            sessionTimeoutMilliseconds: 6_000
        )
    }

    @Test func plaintextSettingsNameTheGroupAndCommitByHand() {
        let settings = kafka().kafkaSettings(appId: "chat")
        #expect(settings["bootstrap.servers"] == "127.0.0.1:9")
        #expect(settings["group.id"] == "push-relay-chat")
        #expect(settings["auto.offset.reset"] == "earliest")
        #expect(settings["enable.auto.commit"] == "false")
        #expect(settings["session.timeout.ms"] == "6000")
        #expect(settings["security.protocol"] == nil)
        var named = kafka()
        named.groupId = "relays"
        #expect(named.kafkaSettings(appId: "chat")["group.id"] == "relays")
    }

    @Test func pemFilesMapToTheSSLLocations() {
        let settings = kafka(ca: "/ca.pem", certificate: "/client.pem", key: "/client.key").kafkaSettings(appId: "a")
        #expect(settings["security.protocol"] == "ssl")
        #expect(settings["ssl.ca.location"] == "/ca.pem")
        #expect(settings["ssl.certificate.location"] == "/client.pem")
        #expect(settings["ssl.key.location"] == "/client.key")
        #expect(settings["ssl.keystore.location"] == nil)
    }

    @Test func aP12MapsToTheKeystore() {
        let settings = kafka(p12: "/client.p12", password: "secret").kafkaSettings(appId: "a")
        #expect(settings["security.protocol"] == "ssl")
        #expect(settings["ssl.keystore.location"] == "/client.p12")
        #expect(settings["ssl.keystore.password"] == "secret")
        #expect(settings["ssl.ca.location"] == nil)
    }

    func app(_ kafka: Configuration.Ditto.Kafka) -> Configuration.App {
        Configuration.App(id: "chat", topic: "com.example.chat", apiKeySHA256: [], ditto: .init(kafka: kafka))
    }

    @Test func librdkafkaLoadsAValidCAAndCertificate() throws {
        try DittoKafkaCheck.check([
            app(kafka(ca: Self.fixture("tls/ca.pem"))),
            app(kafka(certificate: Self.fixture("tls/client.pem"), key: Self.fixture("tls/client.key"))),
            app(kafka(ca: Self.fixture("tls/ca.pem"), p12: Self.fixture("tls/client.p12"), password: "test")),
        ])
    }

    @Test(
        arguments: [
            (case: "a missing CA", ca: "tls/missing-ca.pem", p12: nil, password: nil),
            (case: "a missing .p12", ca: nil, p12: "tls/missing.p12", password: "test"),
            (case: "a .p12 with the wrong password", ca: nil, p12: "tls/client.p12", password: "wrong"),
        ] as [(case: String, ca: String?, p12: String?, password: String?)]
    )
    func librdkafkaRefusesBadTLSFiles(_ bad: (case: String, ca: String?, p12: String?, password: String?)) {
        let settings = kafka(ca: bad.ca.map(Self.fixture), p12: bad.p12.map(Self.fixture), password: bad.password)
        #expect(throws: KafkaError.self, "\(bad.case)") { try DittoKafkaCheck.check([app(settings)]) }
    }

    @Test func aFileThatCannotBeReadIsNamedWithItsField() {
        let missing = Self.fixture("tls/missing-ca.pem")
        #expect {
            try DittoKafkaCheck.check([app(kafka(ca: missing))])
        } throws: {
            ($0 as? KafkaError)?.description == "apps[0].ditto.kafka.caFile: cannot read \(missing) (no such file)"
        }
    }
}
