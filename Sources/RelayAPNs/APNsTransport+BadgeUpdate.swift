import APNsCore
import Foundation
import RelayCore

extension APNsTransport {
    /// The push that sets the app's badge to `update`'s count and shows nothing: `apns-push-type: alert`
    /// at `apns-priority: 5`, a payload whose `aps` holds only `badge` (`{"aps":{"badge":N}}`), no
    /// apns-collapse-id. A background push must not badge, so an update is an alert that alerts nothing;
    /// priority 5 lets the device take it when it suits its power.
    ///
    /// Source: Apple, "Sending notification requests to APNs" (apns-push-type, apns-priority) and
    /// "Generating a remote notification" (badge).
    static func badgeRequest(for update: BadgeUpdateJob, token: DeviceToken, topic: String) -> APNsNotification {
        APNsNotification(
            deviceToken: token,
            topic: topic,
            pushType: .alert,
            priority: .conserve,
            expiration: nil,
            collapseId: nil,
            payload: BadgePayload(aps: APS(badge: update.badge)).encoded()
        )
    }

    /// The payload of a badge update: `aps` alone, holding only `badge`.
    struct BadgePayload: Encodable {
        var aps: APS

        func encoded() -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            // An Int in optionals cannot fail to encode.
            return try! encoder.encode(self)
        }
    }
}
