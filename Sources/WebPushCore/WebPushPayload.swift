import Foundation
import RelayCore
import RelayCrypto

/// What a browser receives for one chat message: the JSON plaintext of a push message (encrypted by
/// ``MessageEncryption``), in one of two shapes.
///
/// - For a service worker (default), keys sorted:
///   `{"body":"Alice: hi","dittoChatMessageId":"<id>","dittoChatRoomId":"<room>","title":"Team"}`; the
///   worker shows title and body and opens the room (and message, when its id is there) on click.
/// - Declarative Web Push (WebKit, "Meet Declarative Web Push"; Safari 18.4+ shows it without a service
///   worker): `{"notification":{"body":"Alice: hi","data":{"dittoChatMessageId":"<id>",
///   "dittoChatRoomId":"<room>"},"navigate":"<openURL filled>","tag":"dittochat-msg-<id>","title":"Team"},
///   "web_push":8030}`; the `tag` (the message's notification identifier, as APNs' collapse id and FCM's
///   tag) makes a message sent again replace the one shown, as a service worker's tag does.
///
/// The texts are the shown message's, as APNs and FCM show them (``RelayCore/ChatMessage/shown``;
/// privacy mode already replaced them). Browsers need a title: without a room name the body is the title
/// and the body is left empty (plain) or out (declarative).
public struct WebPushPayload: Sendable, Equatable {
    /// The notification's title.
    public var title: String?
    /// The notification's body; nil or empty when the title holds the text.
    public var body: String?
    /// `dittoChatRoomId`: the room a click opens.
    public var roomId: String
    /// `dittoChatMessageId`, when the message id is known.
    public var messageId: String?
    /// The declarative shape's `navigate` URL; nil sends the service worker's shape.
    public var navigate: String?

    /// The `web_push` key's value in a declarative message: the RFC number of Web Push.
    public static let declarativeMarker = 8030

    public init(title: String?, body: String?, roomId: String, messageId: String?, navigate: String?) {
        self.title = title
        self.body = body
        self.roomId = roomId
        self.messageId = messageId
        self.navigate = navigate
    }

    /// The payload of a shown chat message: its title and body, its ids, and with `openURL` (an app's
    /// `webPush.openURL` template, for the declarative shape) the `navigate` URL it makes
    /// (``navigateURL(template:roomId:messageId:)``).
    public init(shown: ShownMessage, openURL: String?) {
        self.init(
            title: shown.title ?? shown.body,
            body: shown.title == nil ? nil : shown.body,
            roomId: shown.roomId,
            messageId: shown.messageId,
            navigate: openURL.map {
                Self.navigateURL(template: $0, roomId: shown.roomId, messageId: shown.messageId)
            }
        )
    }

    /// `template` with `{roomId}` and `{messageId}` replaced by the ids, percent-encoded so that each stays
    /// one path segment or query value (everything but RFC 3986's unreserved characters is encoded); an
    /// unknown message id leaves its placeholder empty.
    public static func navigateURL(template: String, roomId: String, messageId: String?) -> String {
        func encoded(_ id: String) -> String { id.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
        return template.replacingOccurrences(of: "{roomId}", with: encoded(roomId))
            .replacingOccurrences(of: "{messageId}", with: encoded(messageId ?? ""))
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// The plaintext within ``MessageEncryption/maxPlaintextSize`` bytes: the body, then the title, cut on a
    /// Character boundary and ended with "…" when the whole does not fit (``RelayCore/TextFitting``).
    /// - Throws: ``WebPushError`` `.payloadTooLarge` when even without title and body it does not fit (ids
    ///   or the navigate URL too long).
    public func encoded() throws(WebPushError) -> Data {
        do {
            return try TextFitting.fit(self, cutting: [\.body, \.title], limit: MessageEncryption.maxPlaintextSize) {
                $0.uncut()
            }
        } catch {
            throw WebPushError(
                .payloadTooLarge,
                "the message needs \(error.minimumBytes) bytes without title and body; one Web Push record holds"
                    + " \(MessageEncryption.maxPlaintextSize)"
            )
        }
    }

    /// The JSON of this payload as it is, keys sorted, UTF-8 unescaped.
    private func uncut() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let ids = Ids(dittoChatRoomId: roomId, dittoChatMessageId: messageId)
        // Strings, optionals and an integer cannot fail to encode.
        if let navigate {
            let notification = Declarative.Notification(
                title: title ?? "",
                body: body.flatMap { $0.isEmpty ? nil : $0 },
                navigate: navigate,
                tag: messageId.map { ChatMessage.notificationIdentifier(messageId: $0) },
                data: ids
            )
            return try! encoder.encode(Declarative(webPush: Self.declarativeMarker, notification: notification))
        }
        let plain = Plain(title: title ?? "", body: body ?? "", dittoChatRoomId: roomId, dittoChatMessageId: messageId)
        return try! encoder.encode(plain)
    }

    private struct Ids: Encodable {
        var dittoChatRoomId: String
        var dittoChatMessageId: String?
    }

    private struct Plain: Encodable {
        var title: String
        var body: String
        var dittoChatRoomId: String
        var dittoChatMessageId: String?
    }

    private struct Declarative: Encodable {
        struct Notification: Encodable {
            var title: String
            var body: String?
            var navigate: String
            var tag: String?
            var data: Ids
        }
        var webPush: Int
        var notification: Notification

        enum CodingKeys: String, CodingKey {
            case webPush = "web_push"
            case notification
        }
    }
}
