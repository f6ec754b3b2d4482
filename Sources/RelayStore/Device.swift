import Foundation
import RelayCore

/// One device registered by a user of an app: its push token (of any platform) and the token's state.
///
/// Times are stored with MILLISECOND precision (sub-millisecond parts are dropped).
public struct Device: Sendable, Equatable, Hashable {
    /// The app (tenant) the registration belongs to; every store call is scoped by it.
    public var appId: String
    /// The full token as registered, with what its platform keeps of the registration (an APNs token's
    /// environment and unlinked topics, a web token's subscription); its platform is the device's. Only
    /// ``RelayCore/PushToken/suffix`` may be logged or shown.
    public var token: PushToken
    /// The user who registered the token most recently.
    public var userId: String
    public var state: DeviceState
    /// The first registration of this token for this app.
    public var createdAt: Date
    /// The last registration (a token known invalid only since before it stays live).
    public var updatedAt: Date
    /// When the token was retired; nil while live.
    public var retiredAt: Date?
    /// Why it was retired, e.g. APNs' reason `Unregistered`; nil while live.
    public var retiredReason: String?
    /// Since when the token is known invalid: the push service's own time when it gives one (APNs' 410
    /// `timestamp`, when APNs last knew the token was invalid), else the time of the send that found it
    /// invalid; nil while live.
    public var invalidSince: Date?

    /// The device's platform, as the token says.
    public var platform: Platform { token.platform }

    public init(
        appId: String,
        token: PushToken,
        userId: String,
        state: DeviceState = .live,
        createdAt: Date,
        updatedAt: Date,
        retiredAt: Date? = nil,
        retiredReason: String? = nil,
        invalidSince: Date? = nil
    ) {
        self.appId = appId
        self.token = token
        self.userId = userId
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.retiredAt = retiredAt
        self.retiredReason = retiredReason
        self.invalidSince = invalidSince
    }
}
