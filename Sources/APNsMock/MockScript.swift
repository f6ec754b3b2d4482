import Foundation

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
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw MockAPNsError(.script, "cannot read script \(url.path): \(error.localizedDescription)")
        }
        try self.init(json: data)
    }

    /// Decodes a script from JSON bytes.
    /// - Throws: ``MockAPNsError`` `.script` when the bytes are not the documented JSON.
    public init(json data: Data) throws(MockAPNsError) {
        do { self = try JSONDecoder().decode(MockScript.self, from: data) } catch {
            throw MockAPNsError(.script, "script is not valid: \(error)")
        }
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

    /// Faults injected on connections.
    public struct ConnectionRule: Codable, Sendable, Equatable {
        /// Which connection(s): JSON `"next"`, `"all"`, or an integer connection id (1 = first accepted).
        public enum Selector: Codable, Sendable, Equatable, Hashable {
            case next, all
            case index(Int)

            public init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let index = try? container.decode(Int.self) {
                    self = .index(index)
                    return
                }
                switch try container.decode(String.self) {
                case "next": self = .next
                case "all": self = .all
                case let other:
                    throw DecodingError.dataCorruptedError(
                        in: container,
                        debugDescription: "connection must be \"next\", \"all\" or an integer, not \"\(other)\""
                    )
                }
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .next: try container.encode("next")
                case .all: try container.encode("all")
                case .index(let index): try container.encode(index)
                }
            }
        }

        /// GOAWAY (RFC 9113 §6.8) sent after a request was answered; the connection then closes once every
        /// stream at or below `lastStreamId` was answered.
        public struct GoAway: Codable, Sendable, Equatable {
            /// Send it right after answering this request ordinal (0: as soon as the connection starts).
            public var afterRequests: Int
            /// last-stream-id; nil: the stream of the request that triggered it (with `afterRequests` 0: the last
            /// stream processed, 0 on a new connection).
            public var lastStreamId: Int?
            /// Debug data `{"reason":"..."}` (e.g. `"Shutdown"`, `"IdleTimeout"`); nil sends none.
            public var reason: String?
            /// HTTP/2 error code (RFC 9113 §7); default 0 (NO_ERROR).
            public var errorCode: UInt32?

            public init(afterRequests: Int, lastStreamId: Int? = nil, reason: String? = nil, errorCode: UInt32? = nil) {
                self.afterRequests = afterRequests
                self.lastStreamId = lastStreamId
                self.reason = reason
                self.errorCode = errorCode
            }
        }

        /// A SETTINGS frame lowering (or raising) SETTINGS_MAX_CONCURRENT_STREAMS.
        public struct StreamLimit: Codable, Sendable, Equatable {
            /// The new SETTINGS_MAX_CONCURRENT_STREAMS.
            public var value: Int
            /// Sent after answering this request ordinal; 0 (default): at once (a new connection's first
            /// SETTINGS), and it replaces the value granted after authentication.
            public var afterRequests: Int?

            public init(value: Int, afterRequests: Int? = nil) {
                self.value = value
                self.afterRequests = afterRequests
            }
        }

        public var connection: Selector
        public var goAway: GoAway?
        public var maxConcurrentStreams: StreamLimit?
        /// Request ordinals answered with RST_STREAM REFUSED_STREAM (RFC 9113 §8.7: not processed).
        public var refuseRequests: [Int]?
        /// Close the TCP connection (no GOAWAY) once this request ordinal's answer was written.
        public var dropAfterRequests: Int?

        public init(
            connection: Selector,
            goAway: GoAway? = nil,
            maxConcurrentStreams: StreamLimit? = nil,
            refuseRequests: [Int]? = nil,
            dropAfterRequests: Int? = nil
        ) {
            self.connection = connection
            self.goAway = goAway
            self.maxConcurrentStreams = maxConcurrentStreams
            self.refuseRequests = refuseRequests
            self.dropAfterRequests = dropAfterRequests
        }
    }
}
