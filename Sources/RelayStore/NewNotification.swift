import Foundation
import RelayCore

/// A notification to record (one per accepted webhook), with the APNs headers and payload every delivery
/// of it uses.
public struct NewNotification: Sendable, Codable, Equatable {
    /// Chosen by the caller; returned by ``Store/createNotification(_:recipients:)``.
    public var id: UUID
    public var appId: String
    public var kind: NotificationKind
    /// The chat message id; with ``appId`` and ``kind`` it de-duplicates webhooks. nil = never a duplicate.
    public var messageId: String?
    public var roomId: String
    public var senderId: String
    /// apns-topic.
    public var topic: String
    /// apns-push-type.
    public var pushType: PushType
    /// apns-priority.
    public var priority: Priority
    /// apns-expiration, UNIX epoch SECONDS (0 = deliver once); nil = header not sent.
    public var expiration: Int?
    /// apns-collapse-id.
    public var collapseId: String?
    /// The exact APNs JSON body, stored and sent byte for byte.
    public var payload: Data
    public var createdAt: Date

    public init(
        id: UUID = UUID(),
        appId: String,
        kind: NotificationKind,
        messageId: String?,
        roomId: String,
        senderId: String,
        topic: String,
        pushType: PushType = .alert,
        priority: Priority = .immediate,
        expiration: Int? = nil,
        collapseId: String? = nil,
        payload: Data,
        createdAt: Date
    ) {
        self.id = id
        self.appId = appId
        self.kind = kind
        self.messageId = messageId
        self.roomId = roomId
        self.senderId = senderId
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.payload = payload
        self.createdAt = createdAt
    }
}
