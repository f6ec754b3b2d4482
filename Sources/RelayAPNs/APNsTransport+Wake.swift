import Foundation
import RelayCore

extension APNsTransport {
    /// The name of the wake payload among a notification's renderings.
    static let wakeRendering = "apns-wake-payload"

    /// The background push that wakes the app for `job`'s message (``RelayCore/PushMode/wake``):
    /// `apns-push-type: background`, `apns-priority: 5`, and a payload whose `aps` holds only
    /// `content-available: 1`, with `dittoChatRoomId` and `dittoChatMessageId`
    /// (``RelayCore/ChatMessage/wakePayload()``). No apns-collapse-id: nothing is shown, and the SDK's
    /// banner that follows carries its own identifier. Nil when the message has no id (it cannot wake).
    ///
    /// Source: Apple, "Pushing background updates to your App" and "Sending notification requests to APNs".
    static func wakeRequest(for job: DeliveryJob, token: DeviceToken) -> APNsNotification? {
        let content = job.content
        guard let wake = content.message.wakePayload() else { return nil }
        return APNsNotification(
            deviceToken: token,
            topic: content.topic,
            pushType: .background,
            priority: .conserve,
            expiration: content.expiration,
            collapseId: nil,
            apnsId: job.pushId,
            payload: content.rendering(wakeRendering) { wake.encoded() }
        )
    }
}
