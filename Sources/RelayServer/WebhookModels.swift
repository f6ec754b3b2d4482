import Foundation
import RelayCore
import RelayHTTP

/// `POST /v1/webhooks/did-send-message` and `did-send-image-message` bodies: what the host app knows when
/// the SDK's delegate reports a sent message.
struct MessageWebhook: ClosedJSONBody {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case roomId, senderId, text, messageId, roomName, senderName, senderDeviceToken, recipients, mentions
        case caption, imageUrl
    }

    var roomId: String
    /// The backend names the sender; a user may leave it out (it is then the caller).
    var senderId: String?
    /// Required for did-send-message; absent for images.
    var text: String?
    var messageId: String?
    var roomName: String?
    var senderName: String?
    var senderDeviceToken: String?
    var recipients: [String]?
    /// The users the message mentions: a recipient at level `mentions` gets it when named here.
    var mentions: [String]?
    var caption: String?
    var imageUrl: String?

    /// The fields the webhook of `kind` takes: did-send-message no `caption` or `imageUrl`,
    /// did-send-image-message no `text` (each refuses the other's with its own message).
    static func fieldNames(of kind: NotificationKind) -> [String] {
        let others: [CodingKeys] = kind == .imageMessage ? [.text] : [.caption, .imageUrl]
        return CodingKeys.allCases.filter { !others.contains($0) }.map(\.stringValue)
    }
}

/// The answer to a webhook: 202 when new, 200 for a repeat of the same message.
struct WebhookAccepted: Encodable {
    /// None for an app with a stream: nothing is stored.
    var notificationId: String?
    var devices: Int
    /// `ditto` when the app's change stream makes the push; none when the relay notified.
    var source: String? = nil
}
