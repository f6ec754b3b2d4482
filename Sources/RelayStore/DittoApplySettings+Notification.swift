import Foundation
import RelayCore

extension DittoApplySettings {
    /// The notification of a stream message and whom it goes to: the push's recipients as their levels for
    /// the room admit it (its mentions and whether it is a DM with it), never the sender,
    /// texts kept by the webhook's rules (none in privacy mode), no daily budget, due ``pushDelaySeconds``
    /// after `messageAt` (its `createdOn`, clamped to its arrival `at`).
    package func notification(
        of push: DittoMessageRule.Push,
        appId: String,
        messageAt: Date,
        at: Date
    )
        -> (NewNotification, RecipientSelection)
    {
        let message = push.message
        let notification = NewNotification(
            appId: appId,
            message: privacy ? message.withoutTexts : message.kept,
            sendAs: sendAs,
            expiration: ttlSeconds == 0 ? 0 : Int(at.timeIntervalSince1970) + ttlSeconds,
            createdAt: at,
            messageAt: messageAt,
            delaySeconds: pushDelaySeconds
        )
        let recipients = RecipientSelection(
            roomId: message.roomId,
            userIds: push.recipients,
            overridesLevels: false,
            mentionedUserIds: push.mentionedUserIds,
            isDirect: push.isDirect,
            excludeUserId: message.senderId
        )
        return (notification, recipients)
    }

    /// The removal of deleted message `original` (a notification's message): kind
    /// ``RelayCore/NotificationKind/removal``, in the original's room and of its sender, named by the delete
    /// document's id, due at once (no grace window: the message is gone), expiring like any push of the app.
    package func removal(
        of original: ChatMessage,
        deletion: DittoMessageRule.Deletion,
        appId: String,
        at: Date
    ) -> NewNotification {
        NewNotification(
            appId: appId,
            message: .removal(
                of: deletion.messageId,
                roomId: original.roomId,
                senderId: original.senderId,
                deleteId: deletion.deleteId
            ),
            sendAs: sendAs,
            expiration: ttlSeconds == 0 ? 0 : Int(at.timeIntervalSince1970) + ttlSeconds,
            createdAt: at
        )
    }
}
