import Foundation

extension ChatMessage {
    /// The start of the DittoChat SDK's own local banner identifier, `"dittochat-msg-" + messageId` (iOS
    /// `ChatNotificationManager`).
    public static let bannerIdentifierPrefix = "dittochat-msg-"

    /// The start of the identifier of a message whose banner identifier APNs cannot carry. No banner
    /// identifier starts with it, so no message id can choose another message's hashed identifier.
    public static let hashedIdentifierPrefix = "dittochat-sha256-"

    /// The most BYTES of UTF-8 of a notification identifier: 64, what APNs' `apns-collapse-id` carries
    /// (APNsCore's `APNsLimits.collapseIdMaxBytes`), the strictest of the services that take one.
    public static let notificationIdentifierMaxBytes = 64

    /// The identifier of the notification for message `messageId`: the push's `apns-collapse-id` and FCM's
    /// `android.notification.tag`, on every path that knows the message id.
    ///
    /// It is the SDK's local banner identifier, `dittochat-msg-<messageId>` with the id byte for byte (a
    /// Swift UUID stays upper case: 50 bytes), so on an iPhone the SDK's banner and the push for one message
    /// are one notification (Apple, "Sending notification requests to APNs": a remote notification's
    /// request identifier is its `apns-collapse-id`, and a new one replaces the one shown with that
    /// identifier). When APNs cannot carry that as given, it is ``hashedIdentifierPrefix`` and the first
    /// lowercase hex digits of the SHA-256 of the id's UTF-8 bytes that fit 64 bytes (47 digits, 188 bits):
    /// over ``notificationIdentifierMaxBytes`` bytes of UTF-8 (an id over 50 bytes), or not an HTTP/2 field
    /// value (RFC 9113 section 8.2.1: a control character, or a space at the end, which HTTP/2 peers
    /// refuse as a malformed request).
    /// - Parameter sha256Hex: the SHA-256 of the bytes as 64 lowercase hex digits. RelayCore imports no C;
    ///   the transports give OpenSSL's, through RelayCrypto's `ChatMessage.notificationIdentifier(messageId:)`.
    public static func notificationIdentifier(messageId: String, sha256Hex: (Data) -> String) -> String {
        let banner = bannerIdentifierPrefix + messageId
        if banner.utf8.count <= notificationIdentifierMaxBytes, isFieldValue(banner) { return banner }
        let digits = notificationIdentifierMaxBytes - hashedIdentifierPrefix.utf8.count
        return hashedIdentifierPrefix + sha256Hex(Data(messageId.utf8)).prefix(digits)
    }

    /// Whether `text` can be an HTTP/2 header's value byte for byte (RFC 9113 section 8.2.1): no byte below
    /// 0x20 or 0x7F (tab included), and no space at either end.
    private static func isFieldValue(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else { return false }
        return !bytes.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
