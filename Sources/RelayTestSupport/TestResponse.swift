import Foundation

/// One HTTP answer a test got from a relay (or another server under test).
public struct TestResponse: Sendable {
    /// `{"error":{"code","message"}}`, the body of every error the relay answers.
    public struct ErrorBody: Decodable, Sendable {
        public var code: String
        public var message: String
    }

    public var status: Int
    public var body: Data
    /// Header fields by lowercased name.
    public var headers: [String: String]

    public init(status: Int, body: Data, headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// The header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded as `T`.
    /// - Throws: ``TestFailure`` naming the status, the body and the decoding error.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: body) } catch {
            throw TestFailure(description: "\(status) \(text) is not \(T.self): \(error)")
        }
    }

    /// The body as a JSON object.
    /// - Throws: ``TestFailure`` when it is not one.
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw TestFailure(description: "not a JSON object: \(text)")
        }
        return object
    }

    /// The error body, or nil when the body is not that shape.
    public var error: ErrorBody? {
        struct Envelope: Decodable { var error: ErrorBody }
        return (try? JSONDecoder().decode(Envelope.self, from: body))?.error
    }
}

/// A failure of a test's own set-up (a deadline passed, an answer that is not the expected JSON).
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}
