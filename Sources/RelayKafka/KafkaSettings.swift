import CRdKafka

/// librdkafka configuration properties (`bootstrap.servers`, `group.id`, `ssl.ca.location`, …), applied in
/// order, so a later value of the same name wins.
public struct KafkaSettings: Sendable, Equatable {
    public private(set) var properties: [(name: String, value: String)] = []

    public init(_ properties: [(String, String)] = []) {
        for (name, value) in properties { self[name] = value }
    }

    public static func == (lhs: KafkaSettings, rhs: KafkaSettings) -> Bool {
        lhs.properties.elementsEqual(rhs.properties) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The value set for `name`, if any.
    public subscript(name: String) -> String? {
        get { properties.last { $0.name == name }?.value }
        set {
            properties.removeAll { $0.name == name }
            if let newValue { properties.append((name, newValue)) }
        }
    }

    /// A new `rd_kafka_conf_t` holding these properties; librdkafka checks each name and value (and loads
    /// certificate files as it is given them). The caller owns the result until `rd_kafka_new` takes it.
    func makeConfiguration() throws(KafkaError) -> OpaquePointer {
        let configuration = rd_kafka_conf_new()!
        var errorText = [CChar](repeating: 0, count: 512)
        for property in properties {
            let result = rd_kafka_conf_set(
                configuration,
                property.name,
                property.value,
                &errorText,
                errorText.count
            )
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(configuration)
                let message = errorText.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                throw KafkaError(call: "rd_kafka_conf_set(\(property.name))", code: 0, message: message)
            }
        }
        return configuration
    }
}

/// Makes a librdkafka client of `type` from `configuration` (which it takes over, also on failure).
func makeClient(_ type: rd_kafka_type_t, _ configuration: OpaquePointer) throws(KafkaError) -> OpaquePointer {
    var errorText = [CChar](repeating: 0, count: 512)
    guard let client = rd_kafka_new(type, configuration, &errorText, errorText.count) else {
        rd_kafka_conf_destroy(configuration)
        let message = errorText.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw KafkaError(call: "rd_kafka_new", code: 0, message: message)
    }
    return client
}
