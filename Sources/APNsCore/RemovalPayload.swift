import Foundation

/// The APNs payload of a removal push: `{"aps":{"content-available":1},"dittoChatRemoveMessageId":"<id>",
/// "dittoChatRemoveNotificationId":"<identifier>"}`, a background push with no alert, sound or badge (Apple,
/// "Pushing background updates to your App"). The app removes the delivered notification `<identifier>`
/// (the alert's `apns-collapse-id`) when it wakes.
public struct RemovalPayload: Encodable, Sendable, Equatable {
    public var aps = APS(contentAvailable: 1)
    public var dittoChatRemoveMessageId: String
    public var dittoChatRemoveNotificationId: String

    public init(removedMessageId: String, notificationIdentifier: String) {
        dittoChatRemoveMessageId = removedMessageId
        dittoChatRemoveNotificationId = notificationIdentifier
    }

    /// The payload's bytes, keys sorted.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding an int and a string cannot fail.
        return try! encoder.encode(self)
    }
}
