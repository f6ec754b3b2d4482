import Foundation
import RelayCore

extension DittoApplySettings {
    /// The notification of a stream message and whom it goes to: the push's recipients as their levels for
    /// the room admit it (its mentions and whether it is a DM with it), never the sender,
    /// texts kept by the webhook's rules (none in privacy mode), no daily budget.
    package func notification(
        of push: DittoMessageRule.Push,
        appId: String,
        at: Date
    )
        -> (NewNotification, RecipientSelection)
    {
        let message = push.message
        let notification = NewNotification(
            appId: appId,
            message: privacy ? message.withoutTexts : message.kept,
            topic: topic,
            expiration: ttlSeconds == 0 ? 0 : Int(at.timeIntervalSince1970) + ttlSeconds,
            createdAt: at
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
}
