import Foundation
import RelayCore

/// A recorded notification and how its deliveries stand.
public struct NotificationSummary: Sendable, Codable, Equatable {
    public var id: UUID
    public var kind: NotificationKind
    public var roomId: String
    public var senderId: String
    public var messageId: String?
    public var createdAt: Date
    /// Deliveries by status; ``DeliveryCounts/total`` is all of them.
    public var counts: DeliveryCounts

    public init(
        id: UUID,
        kind: NotificationKind,
        roomId: String,
        senderId: String,
        messageId: String?,
        createdAt: Date,
        counts: DeliveryCounts
    ) {
        self.id = id
        self.kind = kind
        self.roomId = roomId
        self.senderId = senderId
        self.messageId = messageId
        self.createdAt = createdAt
        self.counts = counts
    }
}
