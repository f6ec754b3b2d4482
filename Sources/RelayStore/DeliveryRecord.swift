import Foundation
import RelayCore

/// One delivery as the API reports it. Holds the FULL token's text: show only
/// ``RelayCore/PushToken/suffix(of:)``.
public struct DeliveryRecord: Sendable, Equatable {
    public var deliveryId: Int64
    public var token: String
    public var status: DeliveryStatus
    /// The platform of the delivery's device; nil when the device is gone (deleted) and ``sentPlatform``
    /// reads it from the token.
    public var platform: Platform?
    /// The delivery's id, the same for every attempt: the `apns-id` an APNs push carries (an FCM message is
    /// named by FCM instead).
    public var pushId: UUID
    /// Attempts made.
    public var attempts: Int
    /// HTTP status of the push service's last answer (nil before any, or for a transport error without one).
    public var lastStatus: Int?
    /// The service's reason (or the relay's) for the last failure.
    public var lastReason: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// When the push service accepted it.
    public var sentAt: Date?
    /// When it is due (pending only).
    public var nextAttemptAt: Date?

    public init(
        deliveryId: Int64,
        token: String,
        status: DeliveryStatus,
        platform: Platform?,
        pushId: UUID,
        attempts: Int,
        lastStatus: Int?,
        lastReason: String?,
        createdAt: Date,
        updatedAt: Date,
        sentAt: Date?,
        nextAttemptAt: Date?
    ) {
        self.deliveryId = deliveryId
        self.token = token
        self.status = status
        self.platform = platform
        self.pushId = pushId
        self.attempts = attempts
        self.lastStatus = lastStatus
        self.lastReason = lastReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.sentAt = sentAt
        self.nextAttemptAt = nextAttemptAt
    }

    /// The platform the delivery goes to: its device's, or for a device that is gone, the one its token's
    /// text names (APNs hex, a web token's `web-` identity, else an FCM token).
    public var sentPlatform: Platform {
        if let platform { return platform }
        if (try? DeviceToken(parsing: token)) != nil { return .ios }
        return (try? WebPushToken(parsing: token)) != nil ? .web : .android
    }
}
