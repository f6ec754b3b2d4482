import APNsCore
import Foundation
import RelayCore
import RelayCrypto

extension APNsTransport {
    /// The name of the wake payload among a notification's renderings.
    static let wakeRendering = "apns-wake-payload"
    /// The name of the removal payload among a notification's renderings.
    static let removalRendering = "apns-removal-payload"

    /// The background push that wakes the app for `job`'s message (``RelayCore/PushMode/wake``): a payload
    /// whose `aps` holds only `content-available: 1`, with `dittoChatRoomId` and `dittoChatMessageId`
    /// (``APNsCore/ChatPayload/init(waking:)``). Nil when the message has no id (it cannot wake).
    static func wakeRequest(for job: DeliveryJob, token: DeviceToken) -> APNsNotification? {
        guard let wake = ChatPayload(waking: job.shown) else { return nil }
        return backgroundRequest(for: job, token: token) {
            job.content.rendering(wakeRendering) { wake.encoded() }
        }
    }

    /// The background push of a removal (``RelayCore/NotificationKind/removal``): `content-available: 1`,
    /// `dittoChatRemoveMessageId` and `dittoChatRemoveNotificationId` (``APNsCore/RemovalPayload``), so the
    /// app takes the deleted message's notification away. Nil for a chat message.
    static func removalRequest(for job: DeliveryJob, token: DeviceToken) -> APNsNotification? {
        guard let removed = job.content.message.removedMessageId else { return nil }
        return backgroundRequest(for: job, token: token) {
            job.content.rendering(removalRendering) {
                RemovalPayload(
                    removedMessageId: removed,
                    notificationIdentifier: ChatMessage.notificationIdentifier(messageId: removed)
                ).encoded()
            }
        }
    }

    /// A background push of `payload`: `apns-push-type: background`, `apns-priority: 5`, no
    /// apns-collapse-id (nothing is shown; a wake's banner that follows carries its own identifier).
    ///
    /// Source: Apple, "Pushing background updates to your App" and "Sending notification requests to APNs".
    private static func backgroundRequest(
        for job: DeliveryJob,
        token: DeviceToken,
        payload: () -> Data
    ) -> APNsNotification {
        APNsNotification(
            deviceToken: token,
            topic: job.content.sendAs,
            pushType: .background,
            priority: .conserve,
            expiration: job.content.expiration,
            collapseId: nil,
            apnsId: job.pushId,
            payload: payload()
        )
    }
}
