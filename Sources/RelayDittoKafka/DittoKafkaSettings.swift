import RelayCore
import RelayKafka

extension Configuration.Ditto.Kafka {
    /// The librdkafka properties of `appId`'s consumer: its group, the topics' earliest offset for a new
    /// group (the mirror needs old users and rooms; the age rule keeps old messages silent), manual commits,
    /// the session timeout, and TLS as Ditto's CDC needs it (a CA, a PEM certificate and key, or a .p12).
    public func kafkaSettings(appId: String) -> KafkaSettings {
        var settings = KafkaSettings([
            ("bootstrap.servers", bootstrapServers), ("group.id", group(appId: appId)),
            ("client.id", "push-relay-\(appId)"), ("auto.offset.reset", "earliest"),
            ("enable.auto.commit", "false"), ("enable.auto.offset.store", "false"),
            ("session.timeout.ms", "\(sessionTimeoutMilliseconds)"),
            ("heartbeat.interval.ms", "\(max(100, sessionTimeoutMilliseconds / 10))"),
        ])
        guard usesTLS else { return settings }
        settings["security.protocol"] = "ssl"
        if let caFile { settings["ssl.ca.location"] = caFile }
        if let certificateFile { settings["ssl.certificate.location"] = certificateFile }
        if let keyFile { settings["ssl.key.location"] = keyFile }
        if let p12File {
            settings["ssl.keystore.location"] = p12File
            settings["ssl.keystore.password"] = p12Password ?? ""
        }
        return settings
    }
}
