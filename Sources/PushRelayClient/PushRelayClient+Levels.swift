import Foundation

extension PushRelayClient {
    /// Sets the user's notification level for a room (`PUT /v1/rooms/{roomId}/members/{userId}` with
    /// `{"notify": …}`), making the user a member if it is not (an app whose members Ditto holds stores the
    /// level alone). ``resetNotificationLevel(forRoom:)`` returns the room to the user's default level.
    ///
    /// - Throws: ``PushRelayError``.
    public func setNotificationLevel(_ level: NotificationLevel, forRoom roomId: String) async throws {
        try await putRoomLevel(level.rawValue, roomId)
    }

    /// Returns a room to the user's default notification level (`{"notify": "default"}`), making the user a
    /// member if it is not, as ``setNotificationLevel(_:forRoom:)`` does.
    ///
    /// - Throws: ``PushRelayError``.
    public func resetNotificationLevel(forRoom roomId: String) async throws {
        try await putRoomLevel("default", roomId)
    }

    /// The user's notification level for a room (`GET /v1/rooms/{roomId}/members/{userId}`): its own, nil
    /// when it follows its default, and the level the room's messages are decided by, for a room's mute
    /// switch shown as the relay keeps it.
    ///
    /// - Throws: ``PushRelayError`` (`member_not_found` when the relay keeps the app's members and the user
    ///   is not in the room).
    public func notificationLevel(forRoom roomId: String) async throws -> RoomNotificationLevel {
        let answer = try await transport.send(
            RelayCall(method: "GET", path: ["v1", "rooms", roomId, "members", userId])
        )
        let body = try answer.decode(RoomLevelBody.self)
        return RoomNotificationLevel(own: NotificationLevel(rawValue: body.notify), effective: body.effective)
    }

    private func putRoomLevel(_ notify: String, _ roomId: String) async throws {
        _ = try await transport.send(
            try RelayCall(
                method: "PUT",
                path: ["v1", "rooms", roomId, "members", userId],
                json: LevelBody(notify: notify)
            )
        )
    }

    /// The user's default notification level (`GET /v1/users/{userId}/settings`), for the rooms it set no
    /// level for.
    ///
    /// - Throws: ``PushRelayError``.
    public func defaultNotificationLevel() async throws -> NotificationLevel {
        let answer = try await transport.send(RelayCall(method: "GET", path: ["v1", "users", userId, "settings"]))
        return try answer.decode(UserSettingsBody.self).notify
    }

    /// Sets the user's default notification level (`PUT /v1/users/{userId}/settings`).
    ///
    /// - Throws: ``PushRelayError``.
    public func setDefaultNotificationLevel(_ level: NotificationLevel) async throws {
        _ = try await transport.send(
            try RelayCall(
                method: "PUT",
                path: ["v1", "users", userId, "settings"],
                json: LevelBody(notify: level.rawValue)
            )
        )
    }
}
