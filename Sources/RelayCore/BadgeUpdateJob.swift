import Foundation

/// A claimed badge update: the push that sets one device's app badge to its user's unread total after the
/// user read elsewhere (`apps[].badge`), everything a ``PushTransport`` needs to send it.
///
/// iOS renders it as an alert-type push at priority 5 whose `aps` holds only `badge`; Android as a data
/// message `{"dittoChatUnread": "N"}` at normal priority. No platform shows anything for it.
public struct BadgeUpdateJob: Sendable, Equatable {
    /// Pass back with its result (the store's `completeBadgeUpdates`).
    public var updateId: Int64
    public var appId: String
    /// The device's token; its platform picks the transport.
    public var token: PushToken
    /// Attempts made so far at this update (0 on the first send).
    public var attempts: Int
    /// The device's last registration: a token known invalid only before it is not retired.
    public var deviceRegisteredAt: Date
    /// The user's unread total when the update was claimed: the badge the device shows.
    public var badge: Int

    public init(
        updateId: Int64,
        appId: String,
        token: PushToken,
        attempts: Int,
        deviceRegisteredAt: Date,
        badge: Int
    ) {
        self.updateId = updateId
        self.appId = appId
        self.token = token
        self.attempts = attempts
        self.deviceRegisteredAt = deviceRegisteredAt
        self.badge = badge
    }

    /// How long a push service keeps an update for an offline device, in SECONDS: a badge older than a day
    /// is worth nothing, and the next message or update carries the count anyway.
    public static let timeToLiveSeconds = 86_400
}
