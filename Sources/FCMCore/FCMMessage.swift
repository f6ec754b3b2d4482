import Foundation
import RelayCore
import RelayCrypto

/// One FCM HTTP v1 message to one registration token, for a Ditto chat message: what the Android app shows
/// and the routing keys its `FirebaseMessagingService` reads.
///
/// The request body (Firebase, "REST Resource: projects.messages"; keys sorted, `data` values strings only):
/// ```json
/// {"message":{"android":{"notification":{"tag":"dittochat-msg-<message id>"},"priority":"HIGH",
///  "ttl":"86400s"},"data":{"dittoChatMessageId":"<message id>","dittoChatRoomId":"<room id>",
///  "imageUrl":"<url>"},"notification":{"body":"Alice: hi","title":"Team"},"token":"<registration token>"}}
/// ```
/// The notification `tag` is the message's notification identifier, the APNs push's `apns-collapse-id`
/// (``RelayCore/ChatMessage/notificationIdentifier(messageId:sha256Hex:)``), so a message sent again
/// replaces its notification on the device instead of showing twice; `collapse_key` is not used, FCM keeps
/// only four of them per device.
public struct FCMMessage: Sendable, Equatable {
    /// `android.priority`.
    public enum Priority: String, Sendable, Equatable {
        /// Delivered at once, waking the device (chat messages).
        case high = "HIGH"
        case normal = "NORMAL"
    }

    public var token: FCMRegistrationToken
    /// `notification.title`: the room's name, when known.
    public var title: String?
    /// `notification.body`: "Sender: text", or the text.
    public var body: String?
    /// `data`: string keys to string values (FCM refuses any other value type).
    public var data: [String: String]
    public var priority: Priority
    /// `android.ttl` in SECONDS: how long FCM keeps the message for an offline device (0...28 days; 0 means
    /// deliver now or never).
    public var ttlSeconds: Int
    /// `android.notification.tag`: a notification with the same tag replaces this one on the device.
    public var tag: String?

    public init(
        token: FCMRegistrationToken,
        title: String?,
        body: String?,
        data: [String: String],
        priority: Priority = .high,
        ttlSeconds: Int,
        tag: String?
    ) {
        self.token = token
        self.title = title
        self.body = body
        self.data = data
        self.priority = priority
        self.ttlSeconds = ttlSeconds
        self.tag = tag
    }

    /// The `data` key of the recipient's unread total (``RelayCore/ShownMessage/badge``), a decimal string.
    public static let unreadKey = "dittoChatUnread"

    /// The message for a shown chat message (``RelayCore/ShownMessage``), with the texts every platform
    /// shows: title and body, and in `data` `dittoChatRoomId`, `dittoChatMessageId`, `imageUrl` and (from
    /// the badge) ``unreadKey`` when present; the tag is the message id's notification identifier. Give the
    /// texts uncut (``RelayCore/DeliveryJob/shown``): ``encoded()`` cuts to FCM's own limit.
    public init(token: FCMRegistrationToken, shown: ShownMessage, ttlSeconds: Int) {
        var data = ["dittoChatRoomId": shown.roomId]
        data["dittoChatMessageId"] = shown.messageId
        data["imageUrl"] = shown.imageURL
        data[Self.unreadKey] = shown.badge.map(String.init)
        self.init(
            token: token,
            title: shown.title,
            body: shown.body,
            data: data,
            ttlSeconds: ttlSeconds,
            tag: shown.messageId.map(ChatMessage.notificationIdentifier(messageId:))
        )
    }

    /// The request body within ``FCMLimits/maxMessageBytes``: the body text, then the title, cut on a
    /// Character boundary and ended with "…" when the whole does not fit (``TextFitting``).
    /// - Throws: ``FCMMessageError`` `.reservedDataKey`, `.invalidTTL`, or `.tooLarge` when even without
    ///   title and body it does not fit.
    public func encoded() throws(FCMMessageError) -> Data {
        if let key = data.keys.sorted().first(where: FCMLimits.isReservedDataKey) {
            throw FCMMessageError(.reservedDataKey, "data key '\(key)' is reserved by FCM")
        }
        guard (0...FCMLimits.maxTTLSeconds).contains(ttlSeconds) else {
            throw FCMMessageError(.invalidTTL, "ttl must be 0...\(FCMLimits.maxTTLSeconds) seconds, not \(ttlSeconds)")
        }
        let wire = Wire(message: .init(self))
        let texts: [WritableKeyPath<Wire, String?>] =
            wire.message.notification == nil ? [] : [\.message.notification!.body, \.message.notification!.title]
        do {
            return try TextFitting.fit(wire, cutting: texts, limit: FCMLimits.maxMessageBytes) { $0.encoded() }
        } catch {
            throw FCMMessageError(
                .tooLarge,
                "message needs \(error.minimumBytes) bytes without title and body; FCM allows \(FCMLimits.maxMessageBytes)"
            )
        }
    }

    /// The JSON shape sent.
    private struct Wire: Encodable {
        struct Message: Encodable {
            struct Notification: Encodable {
                var title: String?
                var body: String?
            }
            struct Android: Encodable {
                struct Notification: Encodable {
                    var tag: String
                }
                var priority: String
                var ttl: String
                var notification: Notification?
            }
            var token: String
            var notification: Notification?
            var data: [String: String]?
            var android: Android

            init(_ message: FCMMessage) {
                token = message.token.value
                if message.title != nil || message.body != nil {
                    notification = Notification(title: message.title, body: message.body)
                }
                data = message.data.isEmpty ? nil : message.data
                android = Android(
                    priority: message.priority.rawValue,
                    ttl: "\(message.ttlSeconds)s",
                    notification: message.tag.map { .init(tag: $0) }
                )
            }
        }
        var message: Message

        func encoded() -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Plain strings and optionals cannot fail to encode.
            return try! encoder.encode(self)
        }
    }
}
