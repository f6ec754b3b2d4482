import RelayCore
import RelayHTTP
import RelayStore

extension RelayAPI {
    /// An app with a stream (`apps[].ditto`) takes its rooms and members from Ditto, so the relay's own
    /// member and room writes are refused for it.
    /// - Throws: ``HTTPError`` 409 `managed_by_ditto` when the app has `apps[].ditto`.
    func requireMembershipFromRelay(_ caller: Caller, _ what: String) throws(HTTPError) {
        guard caller.app.ditto != nil else { return }
        throw managedByDitto(caller, what)
    }

    /// 409 `managed_by_ditto`: the app takes its rooms and members from Ditto.
    private func managedByDitto(_ caller: Caller, _ what: String) -> HTTPError {
        HTTPError.conflict(
            code: "managed_by_ditto",
            message: "\(what): app '\(caller.app.id)' takes rooms and members from Ditto (apps[].ditto)"
        )
    }

    /// `PUT /v1/rooms/{roomId}/members/{userId}` for an app with a stream: Ditto holds the membership, so only
    /// a body that sets the user's level for the room (`notify`, or the deprecated `muted`) is taken (204),
    /// stored whether or not the mirror has the user subscribed to the room.
    /// - Throws: ``HTTPError`` 409 `managed_by_ditto` for a body that sets no level (a join).
    func setDittoRoomLevel(
        _ caller: Caller,
        roomId: String,
        userId: String,
        _ change: RoomLevelChange?
    ) async throws -> HTTPResponse {
        guard let change else { throw managedByDitto(caller, "Joining a room") }
        try await takeWriteLimit(caller, userId: userId)
        // A member or not: at most as many rooms with a level of their own as a member's rooms.
        let scope = RoomLevelScope.anyRoom(atMost: userLimits(caller)?.rooms)
        try await withinUserLimits(userId: userId) {
            try await store.setRoomLevel(appId: caller.app.id, roomId: roomId, userId: userId, change, scope: scope)
        }
        return .noContent
    }

    /// The answer to a delegate webhook of an app with a stream: Ditto's change stream makes the push, so the
    /// webhook stores and sends nothing (an app that still forwards the delegate does not double its pushes).
    static func dittoWebhookAnswer() throws -> HTTPResponse {
        try .json(status: 202, WebhookAccepted(notificationId: nil, devices: 0, source: "ditto"))
    }

    /// The mirrored room as `GET /v1/rooms/{roomId}` shows it for an app with a stream: `membership`
    /// `closed` (nobody joins through the relay), the room's `name`, `direct` for a DM room, `source` `ditto`.
    /// - Throws: ``HTTPError`` 404 `not_found` when the mirror holds no room of that id.
    func dittoRoomView(_ caller: Caller, roomId: String) async throws -> RoomView {
        guard let room = try await store.dittoRoom(appId: caller.app.id, roomId: roomId) else {
            throw HTTPError.notFound(message: "No room '\(roomId)' in the app's Ditto mirror")
        }
        return RoomView(
            roomId: roomId,
            membership: RoomMembership.closed.rawValue,
            name: room.document.name,
            direct: room.isDirect,
            source: "ditto"
        )
    }
}
