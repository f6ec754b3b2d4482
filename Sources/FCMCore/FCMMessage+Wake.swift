import RelayCore
import RelayCrypto

extension FCMMessage {
    /// The data-only message that wakes the Android app for a message (``RelayCore/PushMode/wake``): no
    /// `notification` and no tag, so FCM shows nothing and hands `data` (`dittoChatRoomId`,
    /// `dittoChatMessageId`) to the app's `FirebaseMessagingService` even in the background; HIGH priority,
    /// so a dozing device wakes at once (Firebase, "Set and manage Android message priority").
    /// - Parameter shown: a message that wakes (``RelayCore/ShownMessage/wakes``).
    public init(token: FCMRegistrationToken, waking shown: ShownMessage, ttlSeconds: Int) {
        var data = ["dittoChatRoomId": shown.roomId]
        data["dittoChatMessageId"] = shown.messageId
        self.init(token: token, title: nil, body: nil, data: data, priority: .high, ttlSeconds: ttlSeconds, tag: nil)
    }

    /// The data-only message that removes the deleted message `removedId`'s notification
    /// (``RelayCore/NotificationKind/removal``): `data` holds only `dittoChatRemoveMessageId` and
    /// `dittoChatRemoveNotificationId` (the alert's tag), so the app's `FirebaseMessagingService` cancels the
    /// notification it showed; NORMAL priority (nothing to show).
    public init(token: FCMRegistrationToken, removing removedId: String, ttlSeconds: Int) {
        self.init(
            token: token,
            title: nil,
            body: nil,
            data: [
                ChatMessage.removeMessageIdKey: removedId,
                ChatMessage.removeNotificationIdKey: ChatMessage.notificationIdentifier(messageId: removedId),
            ],
            priority: .normal,
            ttlSeconds: ttlSeconds,
            tag: nil
        )
    }
}
