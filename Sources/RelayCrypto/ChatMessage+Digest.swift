import Foundation
import RelayCore

extension ChatMessage {
    /// ``RelayCore/ChatMessage/notificationIdentifier(messageId:sha256Hex:)`` with OpenSSL's SHA-256: the
    /// `apns-collapse-id` and FCM `android.notification.tag` the transports send for message `messageId`.
    public static func notificationIdentifier(messageId: String) -> String {
        notificationIdentifier(messageId: messageId) { Digest.sha256($0).hexString }
    }

    /// The identifier of this message's notification (``notificationIdentifier(messageId:)``); nil without
    /// a message id.
    public var notificationIdentifier: String? { messageId.map(Self.notificationIdentifier(messageId:)) }
}
