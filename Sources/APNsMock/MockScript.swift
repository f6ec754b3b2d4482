import Foundation
import MockHTTP2

/// Scripted behaviour of the mock APNs: answers per device token and faults per connection.
///
/// JSON form (every field except `token` / `connection` optional; see fixtures/mock-script.json):
/// ```json
/// {
///   "devices": [
///     {"token": "<hex>", "status": 410, "reason": "Unregistered", "timestamp": 1700000000000},
///     {"token": "<hex>", "status": 503, "reason": "ServiceUnavailable", "count": 2},
///     {"token": "<hex>", "delayMs": 250},
///     {"token": "<hex>", "neverAnswer": true},
///     {"token": "*", "status": 429, "reason": "TooManyRequests", "count": 1}
///   ],
///   "connections": [
///     {"connection": "next", "goAway": {"afterRequests": 3, "reason": "Shutdown"}},
///     {"connection": 2, "refuseRequests": [1, 2]},
///     {"connection": "all", "maxConcurrentStreams": {"value": 1, "afterRequests": 0}},
///     {"connection": "next", "dropAfterRequests": 5}
///   ]
/// }
/// ```
/// Device rules apply only to requests that passed validation and authentication, in order: the first rule
/// whose `token` matches (lowercase hex, or `"*"` for any) and whose `count` is not used up decides the answer.
/// Connection rules: `"all"` rules apply to every connection, an integer rule to the connection with that id
/// (1 = first accepted), each `"next"` rule to one newly accepted connection, in order (taken when it is
/// accepted and kept for its life). Later rules override earlier ones for the same connection; refused
/// ordinals add up. Request ordinals (`afterRequests`, `refuseRequests`) count complete requests on the
/// connection from 1. Replacing the script resets every count, and open connections apply the new `"all"`
/// and index rules at once: ordinals then count from the change, and `afterRequests: 0` acts immediately
/// (e.g. `{"connection": 1, "goAway": {"afterRequests": 0, "reason": "Shutdown"}}` sends GOAWAY now, with
/// the last processed stream as last-stream-id).
public struct MockScript: Codable, Sendable, Equatable {
    /// Answers by device token.
    public var devices: [DeviceRule]
    /// Faults by connection.
    public var connections: [ConnectionRule]

    public init(devices: [DeviceRule] = [], connections: [ConnectionRule] = []) {
        self.devices = devices
        self.connections = connections
    }

    /// Reads a script from a JSON file.
    /// - Throws: ``MockAPNsError`` `.script` when the file cannot be read or is not the documented JSON.
    public init(contentsOf url: URL) throws(MockAPNsError) {
        try self.init(json: Self.scriptData(contentsOf: url))
    }

    /// Decodes a script from JSON bytes.
    /// - Throws: ``MockAPNsError`` `.script` when the bytes are not the documented JSON.
    public init(json data: Data) throws(MockAPNsError) {
        self = try Self.decoded(json: data)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        devices = try container.decodeIfPresent([DeviceRule].self, forKey: .devices) ?? []
        connections = try container.decodeIfPresent([ConnectionRule].self, forKey: .connections) ?? []
    }

    /// How the mock answers a device token.
    public struct DeviceRule: Codable, Sendable, Equatable {
        /// Lowercase hex device token this rule is for, or `"*"` for every token.
        public var token: String
        /// HTTP status to answer (e.g. 410, 400, 429, 500, 503); nil answers 200 as usual.
        public var status: Int?
        /// Apple reason for the `{"reason":"..."}` body of a non-200 answer (e.g. `"Unregistered"`).
        public var reason: String?
        /// For 410: the `timestamp` in MILLISECONDS since 1970 (default: now).
        public var timestamp: Int64?
        /// Wait this many MILLISECONDS before answering.
        public var delayMs: Int?
        /// Never answer: the stream stays open until the client resets it or the connection closes.
        public var neverAnswer: Bool?
        /// Apply the rule to this many matching requests, then fall through (nil: every request).
        public var count: Int?

        public init(
            token: String,
            status: Int? = nil,
            reason: String? = nil,
            timestamp: Int64? = nil,
            delayMs: Int? = nil,
            neverAnswer: Bool? = nil,
            count: Int? = nil
        ) {
            self.token = token
            self.status = status
            self.reason = reason
            self.timestamp = timestamp
            self.delayMs = delayMs
            self.neverAnswer = neverAnswer
            self.count = count
        }
    }

    /// Faults injected on connections (see ``MockConnectionRule``).
    public typealias ConnectionRule = MockConnectionRule
}

extension MockScript: MockScripted {}

extension MockScript.DeviceRule: MockDeviceRule {
    /// A rule is for its token in any case, or for every token with `"*"`.
    package func applies(to token: String) -> Bool { self.token == "*" || self.token.lowercased() == token }
}
