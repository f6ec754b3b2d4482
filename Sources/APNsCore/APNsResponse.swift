import Foundation

/// What APNs answered to one request. Records the answer; decides nothing.
///
/// Source: Apple, "Handling notification responses from APNs".
public struct APNsResponse: Sendable, Equatable, Codable {
    /// HTTP status: 200 accepted; otherwise an error with ``reason``.
    public var status: Int
    /// The apns-id header APNs answered with (lowercase UUID), when present.
    public var apnsId: String?
    /// apns-unique-id (sandbox only), when present.
    public var apnsUniqueId: String?
    /// The `reason` of an error body; nil on 200.
    public var reason: APNsReason?
    /// For 410: when APNs last knew the token was invalid (the body's `timestamp`, MILLISECONDS since 1970).
    public var timestamp: Date?

    public init(
        status: Int,
        apnsId: String? = nil,
        apnsUniqueId: String? = nil,
        reason: APNsReason? = nil,
        timestamp: Date? = nil
    ) {
        self.status = status
        self.apnsId = apnsId
        self.apnsUniqueId = apnsUniqueId
        self.reason = reason
        self.timestamp = timestamp
    }

    /// True when APNs accepted the notification (200).
    public var isAccepted: Bool { status == 200 }

    /// The error body APNs sends: `{"reason": "...", "timestamp": <ms>}`.
    public struct ErrorBody: Codable, Sendable, Equatable {
        public var reason: String
        /// Milliseconds since 1970, only on 410.
        public var timestamp: Int64?
        public init(reason: String, timestamp: Int64? = nil) {
            self.reason = reason
            self.timestamp = timestamp
        }
    }

    /// Builds the model from a status, headers already picked out, and the raw body.
    /// A body that is not Apple's error JSON keeps its text as an `.unknown` reason.
    public init(status: Int, apnsId: String?, apnsUniqueId: String?, body: Data) {
        self.init(status: status, apnsId: apnsId, apnsUniqueId: apnsUniqueId)
        guard !body.isEmpty else { return }
        if let decoded = try? JSONDecoder().decode(ErrorBody.self, from: body) {
            reason = APNsReason(decoded.reason)
            timestamp = decoded.timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        } else {
            reason = .unknown(String(decoding: body.prefix(200), as: UTF8.self))
        }
    }
}
