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
        /// The device token's last 8 hex characters.
        var tokenSuffix: String
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
    /// The page of deliveries asked for, in the order they were made; none in a user's view: the devices are
    /// other users', whose number, platforms and fates (a token retired: an app removed) are theirs.
    var deliveries: [DeliveryView]
    /// The `offset` of the next page; nil when this page ends the list.
    var nextOffset: Int?

    /// - Parameters:
    ///   - offset: the position of `deliveries[0]` among all of the notification's deliveries.
    ///   - showingDevices: whether the view lists the deliveries (for the backend only); the counts show in
    ///     every view.
    init(_ summary: NotificationSummary, _ deliveries: [DeliveryRecord], offset: Int, showingDevices: Bool) {
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
        let deliveries = showingDevices ? deliveries : []
        let total = summary.counts.total
        let next = offset + deliveries.count
        nextOffset = !deliveries.isEmpty && next < total ? next : nil
        self.deliveries = deliveries.map { record in
            DeliveryView(
                tokenSuffix: PushToken.suffix(of: record.token),
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
