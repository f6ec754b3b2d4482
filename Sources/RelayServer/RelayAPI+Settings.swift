import RelayCore
import RelayHTTP
import RelayStore

extension RelayAPI {
    /// `GET /v1/users/{userId}/settings`: 200 `{"userId", "notify"}`, the user's default level for the rooms
    /// it set none for (`all` when never set). A user reads only its own.
    func userSettings(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let (caller, userId) = try await settingsCall(request, parameters)
        try await takeReadLimit(caller, userId: userId)
        let level = NotifyLevel.effective(
            own: nil,
            userDefault: try await store.userLevel(appId: caller.app.id, userId: userId)
        )
        return try .json(UserSettingsView(userId: userId, notify: level.rawValue))
    }

    /// `PUT /v1/users/{userId}/settings` `{"notify": "all" | "mentions" | "none"}`: 200 with the settings. A
    /// user sets only its own (the backend: anyone's); apps with a stream too, since levels are the relay's.
    func setUserSettings(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let (caller, userId) = try await settingsCall(request, parameters)
        let body = try request.decode(UserSettingsUpdate.self)
        try await takeWriteLimit(caller, userId: userId)
        try await store.setUserLevel(appId: caller.app.id, userId: userId, body.notify)
        return try .json(UserSettingsView(userId: userId, notify: body.notify.rawValue))
    }

    /// The caller and the user of a settings call: a user acts only as itself.
    private func settingsCall(
        _ request: HTTPRequest,
        _ parameters: RouteParameters
    ) async throws -> (Caller, userId: String) {
        let caller = try await directory.authenticate(request)
        let userId = try caller.actingUser(inPath: parameters)
        return (caller, userId)
    }
}
