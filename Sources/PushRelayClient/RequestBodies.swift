import Foundation

/// `POST /v1/devices`. Optional fields left nil are not sent (synthesized `Encodable` skips them).
struct DeviceRegistrationBody: Encodable, Sendable {
    var token: String
    var userId: String
    var environment: String
    var rooms: [String]?
}

/// `POST /v1/webhooks/did-send-message` (`text`) and `did-send-image-message` (`caption`, `imageUrl`).
struct MessageBody: Encodable, Sendable {
    var roomId: String
    var roomName: String?
    var senderId: String
    var senderName: String?
    var senderDeviceToken: String?
    var messageId: String?
    var recipients: [String]?
    var mentions: [String]?
    var text: String?
    var caption: String?
    var imageUrl: String?
}

/// `PUT /v1/rooms/{roomId}/members/{userId}` and `PUT /v1/users/{userId}/settings`: a level (or `default`
/// for a room).
struct LevelBody: Encodable, Sendable {
    var notify: String
}

/// `GET`/`PUT /v1/users/{userId}/settings` answers.
struct UserSettingsBody: Decodable, Sendable {
    var notify: NotificationLevel
}

/// `GET /v1/rooms/{roomId}/members/{userId}` answers: `notify` is a level or `default`.
struct RoomLevelBody: Decodable, Sendable {
    var notify: String
    var effective: NotificationLevel
}

/// `PUT /v1/rooms/{roomId}/read/{userId}`.
struct ReadMarkerBody: Encodable, Sendable {
    var at: String
}

/// The answer to `PUT /v1/rooms/{roomId}/read/{userId}`.
struct ReadPositionBody: Decodable, Sendable {
    var roomId: String
    var userId: String
    var readAt: String
}
