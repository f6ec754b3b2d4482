import Foundation

/// The relay's answer to one attempt.
struct RelayAnswer: Sendable {
    /// The relay's error body, `{"error":{"code","message"}}`.
    private struct ErrorBody: Decodable {
        struct Inner: Decodable {
            var code: String
            var message: String
        }
        var error: Inner
    }

    var status: Int
    var body: Data
    /// `Retry-After` in seconds, when the answer had a readable one.
    var retryAfter: TimeInterval?

    /// The answer as an error: the relay's code and message, or ``PushRelayError/Code-swift.struct/unexpectedResponse``
    /// when the body is not the relay's error (a proxy's page, an empty 502).
    var error: PushRelayError {
        if let relay = try? JSONDecoder().decode(ErrorBody.self, from: body) {
            return PushRelayError(
                code: .init(rawValue: relay.error.code),
                message: relay.error.message,
                status: status,
                retryAfter: retryAfter
            )
        }
        return PushRelayError(
            code: .unexpectedResponse,
            message: "HTTP \(status) without the relay's error body",
            status: status,
            retryAfter: retryAfter
        )
    }

    /// The body decoded as `T`.
    ///
    /// - Throws: ``PushRelayError`` ``PushRelayError/Code-swift.struct/unexpectedResponse`` when it does not
    ///   decode.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: body) } catch {
            throw PushRelayError(
                code: .unexpectedResponse,
                message: "HTTP \(status) body is not \(T.self): \(error)",
                status: status,
                cause: error
            )
        }
    }
}
