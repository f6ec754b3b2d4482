import Foundation
import RelayCore

/// A notification to record (one per accepted webhook): the chat message every delivery of it renders for
/// its device's platform when it is sent.
public struct NewNotification: Sendable, Equatable {
    /// Chosen by the caller; returned by ``Store/createNotification(_:recipients:)``.
    public var id: UUID
    public var appId: String
    /// The message as it is to be shown (already without its texts in privacy mode); its message id names
    /// one message of one sender in ``appId``, whatever its kind (nil = never a duplicate).
    public var message: ChatMessage
    /// The identity the app sends it as (``RelayCore/NotificationContent/sendAs``): devices whose token is
    /// unlinked from it get no delivery.
    public var sendAs: String
    /// When the push services stop trying, UNIX epoch SECONDS (0 = deliver at once or never); nil = no
    /// limit given.
    public var expiration: Int?
    public var createdAt: Date
    /// The sender's budget for the UTC day of ``createdAt``; nil = not counted (a caller its app does not
    /// limit).
    public var budget: DailyBudget?
    /// The message's time: when it was written (a Ditto message's `createdOn`, clamped to its arrival), or
    /// ``createdAt`` (a webhook's acceptance). A read position at or after it cancels the deliveries.
    public var messageAt: Date
    /// The app's grace window (`apps[].pushDelaySeconds`): the deliveries are due this many SECONDS after
    /// ``messageAt`` (``dueAt``).
    public var delaySeconds: Int

    public init(
        id: UUID = UUID(),
        appId: String,
        message: ChatMessage,
        sendAs: String,
        expiration: Int? = nil,
        createdAt: Date,
        budget: DailyBudget? = nil,
        messageAt: Date? = nil,
        delaySeconds: Int = 0
    ) {
        self.id = id
        self.appId = appId
        self.message = message
        self.sendAs = sendAs
        self.expiration = expiration
        self.createdAt = createdAt
        self.budget = budget
        self.messageAt = messageAt ?? createdAt
        self.delaySeconds = delaySeconds
    }

    /// When its deliveries are first due: ``delaySeconds`` after ``messageAt``, so a message that arrives
    /// late is due at once.
    public var dueAt: Date { NotificationContent.due(messageAt: messageAt, delaySeconds: delaySeconds) }

    public var kind: NotificationKind { message.kind }
    public var messageId: String? { message.messageId }
    public var roomId: String { message.roomId }
    public var senderId: String { message.senderId }

    /// Whether a stored notification with this message id (its kind's raw value, room and sender) is this
    /// webhook again: kind, room and sender all the same, ids compared by their bytes as the store does.
    package func isSameMessage(kind: String, roomId: String, senderId: String) -> Bool {
        kind == self.kind.rawValue && roomId.isSameId(self.roomId) && senderId.isSameId(self.senderId)
    }
}
