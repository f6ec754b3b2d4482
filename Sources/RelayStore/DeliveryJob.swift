import Foundation
import RelayCore

/// A claimed delivery: everything the dispatcher needs to send one request to APNs.
public struct DeliveryJob: Sendable, Equatable {
    /// Pass back to ``Store/complete(_:at:)``.
    public var deliveryId: Int64
    public var notificationId: UUID
    public var appId: String
    public var token: DeviceToken
    /// The device's current environment (picks the APNs host).
    public var environment: APNsEnvironment
    /// apns-id: fixed when the delivery was created, the same for every resend.
    public var apnsId: UUID
    /// Attempts made so far (0 on the first send).
    public var attempts: Int
    /// apns-topic.
    public var topic: String
    public var pushType: PushType
    public var priority: Priority
    /// apns-expiration, UNIX epoch SECONDS; nil = header not sent.
    public var expiration: Int?
    public var collapseId: String?
    /// The exact JSON body.
    public var payload: Data
    /// The device's last registration (``Device/updatedAt``), to compare with a 410 timestamp.
    public var deviceRegisteredAt: Date

    public init(
        deliveryId: Int64,
        notificationId: UUID,
        appId: String,
        token: DeviceToken,
        environment: APNsEnvironment,
        apnsId: UUID,
        attempts: Int,
        topic: String,
        pushType: PushType,
        priority: Priority,
        expiration: Int?,
        collapseId: String?,
        payload: Data,
        deviceRegisteredAt: Date
    ) {
        self.deliveryId = deliveryId
        self.notificationId = notificationId
        self.appId = appId
        self.token = token
        self.environment = environment
        self.apnsId = apnsId
        self.attempts = attempts
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.payload = payload
        self.deviceRegisteredAt = deviceRegisteredAt
    }

    /// The request to send for this job.
    public var apnsNotification: APNsNotification {
        APNsNotification(
            deviceToken: token,
            topic: topic,
            pushType: pushType,
            priority: priority,
            expiration: expiration,
            collapseId: collapseId,
            apnsId: apnsId,
            payload: payload
        )
    }
}
