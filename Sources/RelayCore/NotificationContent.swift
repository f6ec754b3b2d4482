import Foundation
import Synchronization

/// What every delivery of one notification carries: the chat message as accepted, the identity the app
/// sends it as and when it expires. One instance is shared by the jobs of a notification, so a rendering
/// that does not depend on the device (the APNs payload) is made once for all of them (``rendering(_:_:)``).
public final class NotificationContent: Sendable, Equatable {
    public let id: UUID
    /// The message, already without its texts when the app is in privacy mode.
    public let message: ChatMessage
    /// The identity the app sends the notification as at its push services: the app's `topic` when the
    /// notification was accepted (for APNs the bundle id, sent as apns-topic). A service may refuse a token
    /// for it (``PushResult/unlink(sendAs:status:reason:)``); nothing more is sent to that token as it.
    public let sendAs: String
    /// When the push services stop trying, UNIX epoch SECONDS; 0 = deliver at once or never; nil = no limit
    /// given (each service's default).
    public let expiration: Int?
    public let createdAt: Date
    /// The message's time: when it was written (a Ditto message's `createdOn`, clamped to its arrival), or
    /// ``createdAt`` (a webhook's acceptance). Its deliveries are due the app's grace window after it.
    public let messageAt: Date
    /// What every platform shows of the message (``ChatMessage/shown``), made once for all its deliveries.
    public let shown: ShownMessage
    private let renderings = Mutex<[String: Data]>([:])
    /// The message's notification identifier once made (``notificationIdentifier(_:)``).
    private let identifier = Mutex<String?>(nil)

    public init(
        id: UUID,
        message: ChatMessage,
        sendAs: String,
        expiration: Int?,
        createdAt: Date,
        messageAt: Date? = nil
    ) {
        self.id = id
        self.message = message
        self.sendAs = sendAs
        self.expiration = expiration
        self.createdAt = createdAt
        self.messageAt = messageAt ?? createdAt
        shown = message.shown
    }

    /// When the deliveries of a message written at `messageAt` are due in an app whose grace window
    /// (`apps[].pushDelaySeconds`) is `delaySeconds`.
    public static func due(messageAt: Date, delaySeconds: Int) -> Date {
        messageAt.addingTimeInterval(TimeInterval(delaySeconds))
    }

    /// The message's notification identifier (``ChatMessage/notificationIdentifier(messageId:sha256Hex:)``),
    /// made by `make` from the message id the first time and kept for the other deliveries; nil for a
    /// message without an id.
    public func notificationIdentifier(_ make: (String) -> String) -> String? {
        guard let messageId = message.messageId else { return nil }
        if let known = identifier.withLock({ $0 }) { return known }
        let made = make(messageId)
        identifier.withLock { $0 = made }
        return made
    }

    /// The rendering called `name`, made by `render` the first time and kept for the other deliveries. A
    /// rendering that throws is not kept.
    public func rendering(_ name: String, _ render: () throws -> Data) rethrows -> Data {
        if let known = renderings.withLock({ $0[name] }) { return known }
        let made = try render()
        renderings.withLock { $0[name] = made }
        return made
    }

    /// Whether the push services would no longer take it at `now`: past its expiration, or, for one to be
    /// delivered at once or never (expiration 0), after its first attempt.
    public func hasExpired(at now: Date, attempts: Int) -> Bool {
        guard let expiration else { return false }
        if expiration == 0 { return attempts > 0 }
        return Int(now.timeIntervalSince1970) >= expiration
    }

    /// Seconds left until ``expiration`` at `now` (never negative); nil without an expiration.
    public func secondsToLive(at now: Date) -> Int? {
        guard let expiration else { return nil }
        if expiration == 0 { return 0 }
        return max(0, expiration - Int(now.timeIntervalSince1970))
    }

    public static func == (a: NotificationContent, b: NotificationContent) -> Bool {
        a.id == b.id && a.message == b.message && a.sendAs == b.sendAs
            && a.expiration == b.expiration && a.createdAt == b.createdAt && a.messageAt == b.messageAt
    }
}
