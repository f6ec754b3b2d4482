import Foundation
import RelayCore
import RelayHTTP
import RelayStore

/// `POST /v1/devices` body.
struct DeviceRegistration: ClosedJSONBody {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, platform, userId, environment, rooms, subscription
    }

    /// The APNs or FCM token; none for a web device (its token is derived from ``subscription``).
    var token: String?
    /// `ios` (default), `android` or `web`.
    var platform: String?
    /// The backend names the user; a user may leave it out (it is then the caller).
    var userId: String?
    var environment: String?
    var rooms: [String]?
    /// A web device's push subscription; only for `web`.
    var subscription: WebSubscription?
}

/// A device as the API shows it; `environment` only for iOS (APNs) devices. A web device shows its
/// identity as `token` and its endpoint's origin, never its endpoint or keys.
struct DeviceView: Encodable {
    var token: String
    var platform: String
    var userId: String
    var environment: String?
    /// A web device's push service (`https://fcm.googleapis.com`).
    var endpointOrigin: String?
    var state: String
    var createdAt: String
    var updatedAt: String

    init(_ device: Device) {
        token = device.token.value
        platform = device.platform.rawValue
        userId = device.userId
        environment = device.token.scope  // APNs' environment; nil for other platforms
        endpointOrigin = device.token.address.flatMap(WebSubscription.endpointOrigin(stored:))
        state = device.state.rawValue
        createdAt = Validation.timestamp(device.createdAt)
        updatedAt = Validation.timestamp(device.updatedAt)
    }
}

struct DeviceList: Encodable {
    var devices: [DeviceView]
}

/// `PUT /v1/rooms/{roomId}/members/{userId}` body (optional): the user's own level for the room.
struct MembershipUpdate: ClosedJSONBody {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case notify, muted
    }

    var notify: MemberNotify?
    /// Deprecated spelling: true is `notify: none`, false the user's default again.
    var muted: Bool?

    /// The change of the user's level for the room the body asks for; nil when it asks none (a plain join).
    /// - Throws: ``HTTPError`` 400 `invalid_field` when it sets both `notify` and `muted`.
    func levelChange() throws(HTTPError) -> RoomLevelChange? {
        switch (notify, muted) {
        case (.some, .some):
            throw .badRequest(code: "invalid_field", message: "set notify or muted (deprecated), not both")
        case (let notify?, nil): notify.change
        case (nil, let muted?): muted ? .set(.none) : .userDefault
        case (nil, nil): nil
        }
    }
}

/// `notify` of a member update: a level for the room, or `default` (the user's default level again).
enum MemberNotify: String, Decodable, ListedCases {
    case all, mentions, none
    case userDefault = "default"

    var change: RoomLevelChange {
        switch self {
        case .all: .set(.all)
        case .mentions: .set(.mentions)
        case .none: .set(.none)
        case .userDefault: .userDefault
        }
    }
}

/// `PUT /v1/users/{userId}/settings` body.
struct UserSettingsUpdate: ClosedJSONBody {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case notify
    }

    /// The user's default level, for the rooms it set none for.
    var notify: NotifyLevel
}

/// A user's settings as `GET`/`PUT /v1/users/{userId}/settings` show them.
struct UserSettingsView: Encodable {
    var userId: String
    /// The default level (`all` when never set).
    var notify: String
}

struct RoomLevelView: Encodable {
    var roomId: String
    var userId: String
    /// The user's own level for the room, `default` when it has none.
    var notify: String
    /// The level the room's messages are decided by: its own, else the user's default, else `all`.
    var effective: String
}

struct MemberList: Encodable {
    var members: [String]
    /// The `offset` of the next page; none on the last.
    var nextOffset: Int?
    /// `ditto` when the members are the app's Ditto mirror's; none for the relay's own.
    var source: String?
}

/// `PUT /v1/rooms/{roomId}` body.
struct RoomSettings: ClosedJSONBody {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case membership
    }

    var membership: RoomMembership
}

/// A room as `GET`/`PUT /v1/rooms/{roomId}` show it.
struct RoomView: Encodable {
    var roomId: String
    var membership: String
    /// The mirrored room's `name` (an app with a stream).
    var name: String?
    /// Whether the mirrored room is a DM room (an app with a stream).
    var direct: Bool?
    /// `ditto` when the room is the app's Ditto mirror's.
    var source: String?
}
