import Foundation

/// The relay's answer to a forwarded message: 202 when it made a notification, 200 when it had already
/// accepted the same message (the first answer's id).
public struct MessageReceipt: Decodable, Sendable, Equatable {
    /// The notification's id (lowercase UUID), for `GET /v1/notifications/{notificationId}`.
    public var notificationId: String
    /// How many devices the relay is sending the notification to (the sender's own are left out).
    public var devices: Int

    public init(notificationId: String, devices: Int) {
        self.notificationId = notificationId
        self.devices = devices
    }
}
