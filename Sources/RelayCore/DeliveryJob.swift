import Foundation

/// A claimed delivery: one notification to one device, everything a ``PushTransport`` needs to send it.
public struct DeliveryJob: Sendable, Equatable {
    /// Pass back with its result (the store's `complete`).
    public var deliveryId: Int64
    public var appId: String
    /// The device's token as registered (an APNs token with its environment); its platform picks the
    /// transport.
    public var token: PushToken
    /// Attempts made so far (0 on the first send).
    public var attempts: Int
    /// The device's last registration: a token known invalid only before it is not retired.
    public var deviceRegisteredAt: Date
    /// What is sent, shared by every delivery of the notification.
    public var content: NotificationContent
    /// The recipient's unread total when the job was claimed, for an app with `apps[].badge`; nil: no badge.
    public var badge: Int?
    /// How it is sent: an alert, or a wake push when the app's ``WakePolicy`` asks for one and the device's
    /// hourly budget took it (decided at claim).
    public var mode: PushMode
    /// Set when the claim ended the delivery `cancelled` instead of handing it out (the recipient read the
    /// room up to the message's time within the grace window): its reason (`read`). Such a job is not sent;
    /// the outbox only counts it.
    public var cancelReason: String?

    public init(
        deliveryId: Int64,
        appId: String,
        token: PushToken,
        attempts: Int,
        deviceRegisteredAt: Date,
        content: NotificationContent,
        badge: Int? = nil,
        mode: PushMode = .alert
    ) {
        self.deliveryId = deliveryId
        self.appId = appId
        self.token = token
        self.attempts = attempts
        self.deviceRegisteredAt = deviceRegisteredAt
        self.content = content
        self.badge = badge
        self.mode = mode
    }

    public var notificationId: UUID { content.id }

    /// The delivery's own id (an APNs push's apns-id, every log line's push.id), the same for every resend
    /// (``PushIdentifier``).
    public var pushId: UUID { PushIdentifier.forDelivery(deliveryId, of: content.id) }

    /// What this device is shown: the message's (``ChatMessage/shown``) with ``badge`` when it is above 0,
    /// and the job's ``mode``. Every platform renders its push from it. A total of 0 (the recipient has no
    /// read position anywhere) is left out: a badge of 0 on an alert would clear the icon while announcing a
    /// message.
    public var shown: ShownMessage {
        var shown = content.shown
        shown.badge = badge.flatMap { $0 > 0 ? $0 : nil }
        shown.mode = mode
        return shown
    }
}
