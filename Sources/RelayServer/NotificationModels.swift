import Foundation
import RelayCore
import RelayStore

/// `GET /v1/notifications/{notificationId}`.
struct NotificationView: Encodable {
    struct Counts: Encodable {
        var pending: Int
        var sent: Int
        var failed: Int
        var retired: Int
        var cancelled: Int
    }
    struct DeliveryView: Encodable {
        /// The device token's last 8 hex characters; left out of a user's view, since the devices are other
        /// users'.
        var tokenSuffix: String?
        var status: String
        /// The delivery's id, the same for every attempt, whatever the push service.
        var pushId: String
        /// ``pushId`` again, as the `apns-id` header carried it: iOS deliveries only.
        var apnsId: String?
        var attempts: Int
        var lastStatus: Int?
        var lastReason: String?
        var createdAt: String
        var updatedAt: String
        var sentAt: String?
        var nextAttemptAt: String?
    }

    var notificationId: String
    var kind: String
    var roomId: String
    var senderId: String
    var messageId: String?
    var createdAt: String
    var counts: Counts
    /// The page of deliveries asked for, in the order they were made.
    var deliveries: [DeliveryView]
    /// The `offset` of the next page; nil when this page ends the list.
    var nextOffset: Int?

    /// - Parameters:
    ///   - offset: the position of `deliveries[0]` among all of the notification's deliveries.
    ///   - showingTokens: whether each delivery names its device's token suffix (for the backend only).
    init(_ summary: NotificationSummary, _ deliveries: [DeliveryRecord], offset: Int, showingTokens: Bool) {
        notificationId = summary.id.lowercasedString
        kind = summary.kind.rawValue
        roomId = summary.roomId
        senderId = summary.senderId
        messageId = summary.messageId
        createdAt = Validation.timestamp(summary.createdAt)
        counts = Counts(
            pending: summary.counts.pending,
            sent: summary.counts.sent,
            failed: summary.counts.failed,
            retired: summary.counts.retired,
            cancelled: summary.counts.cancelled
        )
        let total = summary.counts.total
        let next = offset + deliveries.count
        nextOffset = !deliveries.isEmpty && next < total ? next : nil
        self.deliveries = deliveries.map { record in
            DeliveryView(
                tokenSuffix: showingTokens ? PushToken.suffix(of: record.token) : nil,
                status: record.status.rawValue,
                pushId: record.pushId.lowercasedString,
                apnsId: record.sentPlatform == .ios ? record.pushId.lowercasedString : nil,
                attempts: record.attempts,
                lastStatus: record.lastStatus,
                lastReason: record.lastReason,
                createdAt: Validation.timestamp(record.createdAt),
                updatedAt: Validation.timestamp(record.updatedAt),
                sentAt: record.sentAt.map(Validation.timestamp),
                nextAttemptAt: record.status == .pending ? record.nextAttemptAt.map(Validation.timestamp) : nil
            )
        }
    }
}
