import Foundation

/// A push the client did not send: its endpoint is not one the relay may post to, or its origin is paused
/// or has its most requests in flight. Nothing reached the push service.
public struct WebPushRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why. Open: more codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ description: String) { self.description = description }
        /// The endpoint is plain http or names an IP address, and is not the app's mock push service.
        public static let endpointNotAllowed = Code("EndpointNotAllowed")
        /// The origin is paused after refusals (``until``).
        public static let originPaused = Code("OriginPaused")
        /// The origin has ``WebPushClientConfiguration/maxInFlightPerOrigin`` requests in flight.
        public static let originBusy = Code("OriginBusy")
    }

    public var code: Code
    /// What is wrong; names the endpoint only by ``WebPushCore/PushEndpoint/logDescription``.
    public var message: String
    /// When a paused origin takes sends again; nil for the other codes.
    public var until: Date?

    public init(_ code: Code, _ message: String, until: Date? = nil) {
        self.code = code
        self.message = message
        self.until = until
    }

    public var description: String { "\(code): \(message)" }
}
