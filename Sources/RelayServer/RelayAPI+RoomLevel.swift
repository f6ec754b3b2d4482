import RelayCore
import RelayHTTP
import RelayStore

extension RelayAPI {
    /// `GET /v1/rooms/{roomId}/members/{userId}`: 200 `{"roomId", "userId", "notify", "effective"}`, the
    /// user's own level for the room as `PUT` sets it (`default` when it has none) and the level its messages
    /// are decided by (its own, else the user's default, else `all`), so an app shows a room's mute as the
    /// relay keeps it. A user reads only its own; the backend anyone's. An app with a stream keeps levels
    /// apart from Ditto's members, so any room's is read there.
    /// - Throws: ``HTTPError`` 404 `member_not_found` when the relay keeps the app's members and the user is
    ///   not one.
    func roomLevel(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        let userId = try caller.actingUser(inPath: parameters)
        try await takeReadLimit(caller, userId: userId)
        let appId = caller.app.id
        let own: NotifyLevel?
        if caller.app.ditto != nil {
            own = try await store.roomLevel(appId: appId, roomId: roomId, userId: userId)
        } else {
            guard let member = try await store.member(appId: appId, roomId: roomId, userId: userId) else {
                throw memberNotFound(userId: userId, roomId: roomId)
            }
            own = member.notify
        }
        let userDefault = own == nil ? try await store.userLevel(appId: appId, userId: userId) : nil
        let effective = NotifyLevel.effective(own: own, userDefault: userDefault)
        return try .json(
            RoomLevelView(
                roomId: roomId,
                userId: userId,
                notify: own?.rawValue ?? "default",
                effective: effective.rawValue
            )
        )
    }
}
