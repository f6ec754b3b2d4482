import Foundation
import RelayCore

/// One APNs device token registered by a user of an app.
///
/// Times are stored with MILLISECOND precision (sub-millisecond parts are dropped).
public struct Device: Sendable, Codable, Equatable, Hashable {
    /// The app (tenant) the registration belongs to; every store call is scoped by it.
    public var appId: String
    /// The full token. Only ``RelayCore/DeviceToken/suffix`` may be logged or shown.
    public var token: DeviceToken
    /// The user who registered the token most recently.
    public var userId: String
    /// Sandbox (development builds) or production.
    public var environment: APNsEnvironment
    public var state: DeviceState
    /// The first registration of this token for this app.
    public var createdAt: Date
    /// The last registration (APNs compares its 410 timestamp with this).
    public var updatedAt: Date
    /// When the token was retired; nil while live.
    public var retiredAt: Date?
    /// Why it was retired, e.g. APNs' reason `Unregistered`; nil while live.
    public var retiredReason: String?
    /// The 410 answer's `timestamp`: when APNs last knew the token was invalid; nil if none was given.
    public var apnsTimestamp: Date?
    /// Topics APNs refused for this token (DeviceTokenNotForTopic): no deliveries are created for them.
    /// Cleared by the next registration.
    public var unlinkedTopics: [String]

    public init(
        appId: String,
        token: DeviceToken,
        userId: String,
        environment: APNsEnvironment,
        state: DeviceState = .live,
        createdAt: Date,
        updatedAt: Date,
        retiredAt: Date? = nil,
        retiredReason: String? = nil,
        apnsTimestamp: Date? = nil,
        unlinkedTopics: [String] = []
    ) {
        self.appId = appId
        self.token = token
        self.userId = userId
        self.environment = environment
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.retiredAt = retiredAt
        self.retiredReason = retiredReason
        self.apnsTimestamp = apnsTimestamp
        self.unlinkedTopics = unlinkedTopics
    }
}
