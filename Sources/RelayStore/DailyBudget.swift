import Foundation
import RelayCore

/// How much one user's webhooks may add to the store in a UTC day (``RelayCore/Configuration/Limits``
/// `notificationsPerDay`, `storedBytesPerDay`): the notifications it records and the bytes they take, the
/// delivery rows they create counted with them. Counted in the notification's transaction
/// (``Store/createNotification(_:recipients:idempotencyKey:)``), so relays sharing the store share one budget.
public struct DailyBudget: Sendable, Equatable {
    /// Notifications a day.
    public var notifications: Int
    /// Stored BYTES a day, as ``cost(of:deliveries:)`` counts them.
    public var bytes: Int

    public init(notifications: Int, bytes: Int) {
        self.notifications = notifications
        self.bytes = bytes
    }

    /// What a notification row takes besides its texts and ids: its fixed columns, the row's own overhead and
    /// its index entries, in BYTES (an upper estimate).
    public static let notificationRowBytes = 512
    /// What one delivery row takes with its index entries, in BYTES: its ids and times, an APNs token or an
    /// FCM token of usual length (about 160 characters) twice (row and index); an upper estimate.
    public static let deliveryRowBytes = 512

    /// The BYTES a notification with `deliveries` delivery rows is counted for: ``notificationRowBytes``,
    /// the UTF-8 of its ids, texts, names, image URL and topic, and ``deliveryRowBytes`` per delivery.
    public static func cost(of n: NewNotification, deliveries: Int) -> Int {
        let message = n.message
        let (text, imageURL) = StoredValues.columns(of: message.content)
        let texts = [
            n.appId, message.roomId, message.senderId, n.sendAs, message.messageId, text, imageURL,
            message.roomName, message.senderName,
        ]
        return notificationRowBytes + texts.reduce(0) { $0 + ($1?.utf8.count ?? 0) } + deliveries * deliveryRowBytes
    }

    /// The UTC day `now` falls in (UNIX epoch days), the key of the counts.
    package static func day(_ now: Date) -> Int64 { EpochMilliseconds.of(now) / 86_400_000 }

    /// SECONDS from `now` to the next UTC day, when the counts start again (at least 1).
    package static func secondsToNextDay(_ now: Date) -> Int {
        let milliseconds = (day(now) + 1) * 86_400_000 - EpochMilliseconds.of(now)
        return max(1, Int((milliseconds + 999) / 1000))
    }

    /// Thrown inside the notification's transaction when recording it would pass the budget: the transaction
    /// rolls back and the call answers ``CreateOutcome/overBudget(retryAfterSeconds:)``.
    package struct Exceeded: Error {
        package var retryAfterSeconds: Int

        package init(retryAfterSeconds: Int) { self.retryAfterSeconds = retryAfterSeconds }
    }

    /// Refuses counts past the budget.
    /// - Parameters: notifications and bytes: the user's counts of the day with this notification's.
    /// - Throws: ``Exceeded`` when either is over.
    package func check(notifications: Int64, bytes: Int64, at now: Date) throws(Exceeded) {
        guard notifications <= Int64(self.notifications), bytes <= Int64(self.bytes) else {
            throw Exceeded(retryAfterSeconds: Self.secondsToNextDay(now))
        }
    }
}
