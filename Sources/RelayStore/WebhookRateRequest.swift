import Foundation

/// One webhook's claim on its sender's rate limits (``RelayCore/Configuration/Limits``): one webhook from
/// the sender's bucket and one push to each recipient user in this minute.
///
/// Ids are compared by their UTF-8 bytes (both stores compare text bytewise): two ids that are canonically
/// equivalent but spelled differently are two users.
public struct WebhookRateRequest: Sendable, Equatable {
    public var appId: String
    public var senderId: String
    /// The recipient users; an id given twice counts two pushes.
    public var recipients: [String]
    /// ``RelayCore/Configuration/Limits/webhooksPerMinute``: the bucket's refill rate.
    public var webhooksPerMinute: Int
    /// ``RelayCore/Configuration/Limits/webhookBurst``: the bucket's size.
    public var burst: Int
    /// ``RelayCore/Configuration/Limits/pushesPerRecipientPerMinute``.
    public var pushesPerRecipientPerMinute: Int

    public init(
        appId: String,
        senderId: String,
        recipients: [String],
        webhooksPerMinute: Int,
        burst: Int,
        pushesPerRecipientPerMinute: Int
    ) {
        self.appId = appId
        self.senderId = senderId
        self.recipients = recipients
        self.webhooksPerMinute = webhooksPerMinute
        self.burst = burst
        self.pushesPerRecipientPerMinute = pushesPerRecipientPerMinute
    }
}

/// Which limit refused a webhook, and when to try again (the `Retry-After` SECONDS).
public enum WebhookRateRefusal: Sendable, Equatable {
    /// The sender's bucket is empty.
    case webhooks(retryAfterSeconds: Int)
    /// A recipient has had its pushes from the sender this minute.
    case pushesPerRecipient(retryAfterSeconds: Int)
}
