import Foundation

/// One write's claim on its user's rate limits (``RelayCore/Configuration/Limits``): one token from each of
/// ``buckets`` and, for a webhook, one push to each recipient user in this minute.
///
/// Every write a user makes (device registration and deletion, room and member writes, webhooks) takes from
/// the user's ``Bucket/Name/writes`` bucket; a webhook also takes from its ``Bucket/Name/webhooks`` bucket;
/// every read of what the store holds for the user (devices, settings, unread counts, rooms, notifications)
/// takes from its ``Bucket/Name/reads`` bucket alone.
/// Ids are compared by their UTF-8 bytes (both stores compare text bytewise): two ids that are canonically
/// equivalent but spelled differently are two users.
public struct UserRateRequest: Sendable, Equatable {
    /// One token bucket of a user: refilled at ``perMinute`` / 60 a second up to ``burst``.
    public struct Bucket: Sendable, Equatable {
        /// Which budget a bucket holds (stored as its raw value).
        public enum Name: String, Sendable, CaseIterable {
            case writes
            case webhooks
            case reads
        }

        public var name: Name
        public var perMinute: Int
        public var burst: Int

        public init(_ name: Name, perMinute: Int, burst: Int) {
            self.name = name
            self.perMinute = perMinute
            self.burst = burst
        }
    }

    public var appId: String
    /// The user whose buckets it takes from (a webhook's sender).
    public var senderId: String
    /// The buckets taken from, in this order (relays lock them in it); names are distinct.
    public var buckets: [Bucket]
    /// The recipient users; an id given twice counts two pushes.
    public var recipients: [String]
    /// ``RelayCore/Configuration/Limits/pushesPerRecipientPerMinute``.
    public var pushesPerRecipientPerMinute: Int

    public init(
        appId: String,
        senderId: String,
        buckets: [Bucket],
        recipients: [String] = [],
        pushesPerRecipientPerMinute: Int = 1
    ) {
        self.appId = appId
        self.senderId = senderId
        self.buckets = buckets
        self.recipients = recipients
        self.pushesPerRecipientPerMinute = pushesPerRecipientPerMinute
    }

    /// A webhook that takes only from the ``Bucket/Name/webhooks`` bucket (of `burst` tokens refilled at
    /// `webhooksPerMinute`).
    public init(
        appId: String,
        senderId: String,
        recipients: [String],
        webhooksPerMinute: Int,
        burst: Int,
        pushesPerRecipientPerMinute: Int
    ) {
        self.init(
            appId: appId,
            senderId: senderId,
            buckets: [Bucket(.webhooks, perMinute: webhooksPerMinute, burst: burst)],
            recipients: recipients,
            pushesPerRecipientPerMinute: pushesPerRecipientPerMinute
        )
    }
}

/// Which limit refused a write, and when to try again (the `Retry-After` SECONDS).
public enum UserRateRefusal: Sendable, Equatable {
    /// The user's writes bucket is empty.
    case writes(retryAfterSeconds: Int)
    /// The sender's webhooks bucket is empty.
    case webhooks(retryAfterSeconds: Int)
    /// The user's reads bucket is empty.
    case reads(retryAfterSeconds: Int)
    /// A recipient has had its pushes from the sender this minute.
    case pushesPerRecipient(retryAfterSeconds: Int)

    /// The refusal of an empty bucket named `name`.
    init(_ name: UserRateRequest.Bucket.Name, retryAfterSeconds wait: Int) {
        self =
            switch name {
            case .writes: .writes(retryAfterSeconds: wait)
            case .webhooks: .webhooks(retryAfterSeconds: wait)
            case .reads: .reads(retryAfterSeconds: wait)
            }
    }
}
