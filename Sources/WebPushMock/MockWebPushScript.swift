import Foundation
import MockHTTP2

/// Scripted answers of the mock Web Push service, per subscription (endpoint id), and faults per connection.
///
/// JSON form (every field except `id` optional; see ``MockConnectionRule`` for `connections`):
/// ```json
/// {
///   "endpoints": [
///     {"id": "<endpoint id>", "status": 410},
///     {"id": "<endpoint id>", "status": 429, "retryAfter": 30, "count": 2},
///     {"id": "<endpoint id>", "status": 503, "retryAfter": 5, "message": "maintenance"},
///     {"id": "<endpoint id>", "delayMs": 250},
///     {"id": "<endpoint id>", "neverAnswer": true},
///     {"id": "*", "status": 500, "count": 1}
///   ],
///   "connections": []
/// }
/// ```
/// The endpoint id is the last path segment of a subscription's endpoint (`<base>/push/<id>`, see
/// ``MockWebPushServer/endpointId(of:)``). Rules apply only to pushes that passed every check, in order: the
/// first rule whose `id` matches exactly or is `"*"`, and whose `count` is not used up, decides the answer.
/// Replacing the script resets every count.
public struct MockWebPushScript: Codable, Sendable, Equatable {
    /// Answers by endpoint id.
    public var endpoints: [EndpointRule]
    /// Faults by connection.
    public var connections: [MockConnectionRule]

    public init(endpoints: [EndpointRule] = [], connections: [MockConnectionRule] = []) {
        self.endpoints = endpoints
        self.connections = connections
    }

    /// Reads a script from a JSON file.
    /// - Throws: ``MockWebPushError`` `.script` when the file cannot be read or is not the documented JSON.
    public init(contentsOf url: URL) throws(MockWebPushError) {
        try self.init(json: Self.scriptData(contentsOf: url))
    }

    /// Decodes a script from JSON bytes.
    /// - Throws: ``MockWebPushError`` `.script` when the bytes are not the documented JSON or a rule's status
    ///   is not one a push service answers.
    public init(json data: Data) throws(MockWebPushError) {
        self = try Self.decoded(json: data)
        let problems = endpoints.compactMap(\.problem)
        guard problems.isEmpty else { throw MockWebPushError(.script, problems.joined(separator: "; ")) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        endpoints = try container.decodeIfPresent([EndpointRule].self, forKey: .endpoints) ?? []
        connections = try container.decodeIfPresent([MockConnectionRule].self, forKey: .connections) ?? []
    }

    /// How the mock answers pushes to one subscription.
    public struct EndpointRule: Codable, Sendable, Equatable {
        /// The endpoint id this rule is for, exactly, or `"*"` for every subscription.
        public var id: String
        /// The status to answer instead of 201: one of ``scriptableStatuses``; nil answers 201 as usual.
        public var status: Int?
        /// The error body's `message`; default the status's usual one.
        public var message: String?
        /// `Retry-After` in SECONDS.
        public var retryAfter: Int?
        /// Wait this many MILLISECONDS before answering.
        public var delayMs: Int?
        /// Never answer: the stream stays open until the client resets it or the connection closes.
        public var neverAnswer: Bool?
        /// Apply the rule to this many matching pushes, then fall through (nil: every push).
        public var count: Int?

        /// The statuses a rule may answer: those push services answer a valid-looking push with (RFC 8030,
        /// RFC 8292, autopush's and FCM's documented codes).
        public static let scriptableStatuses: Set<Int> = [400, 401, 403, 404, 410, 413, 429, 500, 503]

        public init(
            id: String,
            status: Int? = nil,
            message: String? = nil,
            retryAfter: Int? = nil,
            delayMs: Int? = nil,
            neverAnswer: Bool? = nil,
            count: Int? = nil
        ) {
            self.id = id
            self.status = status
            self.message = message
            self.retryAfter = retryAfter
            self.delayMs = delayMs
            self.neverAnswer = neverAnswer
            self.count = count
        }

        /// What is wrong with the rule, if anything.
        var problem: String? {
            if let status, !Self.scriptableStatuses.contains(status) {
                return "endpoint rule '\(id)': status \(status) is not one of "
                    + Self.scriptableStatuses.sorted().map(String.init).joined(separator: ", ")
            }
            if let retryAfter, retryAfter < 0 { return "endpoint rule '\(id)': retryAfter must be >= 0" }
            return nil
        }
    }
}

extension MockWebPushScript: MockScripted {
    package var devices: [EndpointRule] { endpoints }
}

extension MockWebPushScript.EndpointRule: MockDeviceRule {
    /// A rule is for its endpoint id exactly, or for every subscription with `"*"`.
    package func applies(to token: String) -> Bool { id == "*" || id == token }
}
