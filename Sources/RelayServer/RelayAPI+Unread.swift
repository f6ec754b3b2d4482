import Foundation
import RelayCore
import RelayHTTP
import RelayStore

extension RelayAPI {
    /// Rooms an unread answer lists at most (the most unread first); its total counts them all.
    static let maxUnreadRooms = 1000

    /// `PUT /v1/rooms/{roomId}/read/{userId}` `{"at": "<RFC 3339>"}`: moves the member's read position
    /// forward (never back; a future `at` counts as now) and answers 200 `{"roomId", "userId", "readAt"}`
    /// with the position kept. A user marks only its own; the backend anyone's. With `apps[].badge`, a read
    /// that lowers the user's unread total makes its devices' badge updates (docs/behaviour.md "Read
    /// elsewhere").
    /// - Throws: ``HTTPError`` 409 `managed_by_ditto` for an app whose positions come from Ditto, 404
    ///   `member_not_found` when the user is not a member, 400 `invalid_field` for an `at` that is no
    ///   RFC 3339 date.
    func markRead(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        let userId = try caller.actingUser(inPath: parameters)
        try requireMembershipFromRelay(caller, "Marking a room read")
        let body = try request.decode(ReadMarker.self)
        guard let at = Timestamp.parse(body.at) else {
            throw HTTPError.badRequest(code: "invalid_field", message: "at must be an RFC 3339 date")
        }
        try await takeWriteLimit(caller, userId: userId)
        guard
            let position = try await store.markRead(
                appId: caller.app.id,
                roomId: roomId,
                userId: userId,
                at: min(at, time.now)
            )
        else {
            throw memberNotFound(userId: userId, roomId: roomId)
        }
        // The read may have made badge updates due now (Store.markRead).
        if caller.app.badge { dispatcher.wake() }
        return try .json(ReadPosition(roomId: roomId, userId: userId, readAt: Timestamp.rfc3339(position)))
    }

    /// `GET /v1/users/{userId}/unread`: `{"total": N, "rooms": {"<roomId>": n}}`, the rooms with unread
    /// messages only, at most ``maxUnreadRooms`` of them. A user reads only its own; the backend anyone's.
    func unread(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let userId = try caller.actingUser(inPath: parameters)
        try await takeReadLimit(caller, userId: userId)
        let counts = try await store.unreadCounts(appId: caller.app.id, userId: userId, roomLimit: Self.maxUnreadRooms)
        return try .json(UnreadView(total: counts.total, rooms: counts.rooms))
    }
}
