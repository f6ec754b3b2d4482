import Foundation

extension PushRelayClient {
    /// Sets the user's notification level for a room (`PUT /v1/rooms/{roomId}/members/{userId}` with
    /// `{"notify": …}`), making the user a member if it is not (an app whose members Ditto holds stores the
    /// level alone); nil returns the room to the user's default level.
    ///
    /// - Throws: ``PushRelayError``.
    public func setNotificationLevel(_ level: NotificationLevel?, forRoom roomId: String) async throws {
        let body = LevelBody(notify: level?.rawValue ?? "default")
        _ = try await transport.send(
            try RelayCall(method: "PUT", path: ["v1", "rooms", roomId, "members", userId], json: body)
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
