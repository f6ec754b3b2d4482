import Foundation
import RelayCore
import RelayKafka

/// What `push-relay config check` proves of an app's Kafka settings without a broker: librdkafka takes
/// every property and, for TLS, loads the CA, the PEM certificate and key or opens the .p12 with its
/// password when the client handle is made. The TLS handshake itself needs a broker.
public enum DittoKafkaCheck {
    /// Makes (and drops) a consumer handle with each app's Kafka settings.
    /// - Throws: ``RelayKafka/KafkaError`` of the first app with a file that cannot be read or settings
    ///   librdkafka refuses, naming the app.
    public static func check(_ apps: [Configuration.App]) throws(KafkaError) {
        for (index, app) in apps.enumerated() {
            guard let kafka = app.ditto?.kafka else { continue }
            // librdkafka names neither the file nor the reason when one is missing (`system lib`).
            let files = [
                ("caFile", kafka.caFile), ("certificateFile", kafka.certificateFile), ("keyFile", kafka.keyFile),
                ("p12File", kafka.p12File),
            ]
            for case let (name, path?) in files {
                if let problem = FileManager.default.readProblem(atPath: path) {
                    throw KafkaError(call: "apps[\(index)].ditto.kafka.\(name)", code: 0, message: problem)
                }
            }
            do {
                // The handle is dropped at once: its brokers' connection errors are not the check's to print
                // (a file librdkafka cannot load is the error thrown here).
                var settings = kafka.kafkaSettings(appId: app.id)
                settings["log_level"] = "2"
                _ = try KafkaConsumer(settings: settings) { _ in }
            } catch {
                throw KafkaError(
                    call: "apps[\(index)].ditto.kafka: \(error.call)",
                    code: error.code,
                    message: error.message
                )
            }
        }
    }
}
