import CRdKafka

/// A librdkafka call that failed: the call's name, librdkafka's error code and its own text.
public struct KafkaError: Error, Sendable, CustomStringConvertible {
    /// The librdkafka function (or step) that failed, e.g. `rd_kafka_new`.
    public let call: String
    /// librdkafka's `rd_kafka_resp_err_t` value (`RD_KAFKA_RESP_ERR_NO_ERROR` for configuration errors).
    public let code: Int32
    /// What librdkafka said.
    public let message: String

    public init(call: String, code: Int32, message: String) {
        self.call = call
        self.code = code
        self.message = message
    }

    init(call: String, _ error: rd_kafka_resp_err_t) {
        self.init(call: call, code: error.rawValue, message: String(cString: rd_kafka_err2str(error)))
    }

    public var description: String { "\(call): \(message)" }

    /// librdkafka's name of the code (`_TRANSPORT`, `_ALL_BROKERS_DOWN`, `TOPIC_AUTHORIZATION_FAILED`…).
    public var name: String { String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: code))) }
}
