/// Faults a mock's script injects on its HTTP/2 connections (APNs' `"connections"` rules): GOAWAY, a changed
/// stream limit, refused streams, a dropped connection. The generic ``MockServer`` applies them for every
/// service whose script has them (see ``MockScripted/connections``).
///
/// Rules: `"all"` rules apply to every connection, an integer rule to the connection with that id (1 = first
/// accepted), each `"next"` rule to one newly accepted connection, in order (taken when it is accepted and kept
/// for its life). Later rules override earlier ones for the same connection; refused ordinals add up. Request
/// ordinals (`afterRequests`, `refuseRequests`) count complete requests on the connection from 1.
public struct MockConnectionRule: Codable, Sendable, Equatable {
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
