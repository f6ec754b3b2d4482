import RelayCore
import RelayHTTP
import RelayOutbox
import RelayStore

/// The rules a user caller is held to that need the store (room membership) and the per-user limits: one
/// place for each, called by the handlers. The backend passes every membership rule, and the limits only
/// when its app sets `limits.limitBackend`.
extension RelayAPI {
    /// Refuses a user who is not a member of the room.
    /// - Throws: ``HTTPError`` 403 `not_a_member`.
    func requireMember(_ caller: Caller, roomId: String) async throws {
        guard let userId = caller.userId else { return }
        guard try await store.member(appId: caller.app.id, roomId: roomId, userId: userId) != nil else {
            throw HTTPError(status: 403, code: "not_a_member", message: "You are not a member of room '\(roomId)'")
        }
    }

    /// Refuses a user a join of a closed room (one whose members the backend sets).
    /// - Throws: ``HTTPError`` 403 `room_closed`.
    func requireOpenRoom(_ caller: Caller, roomId: String) async throws {
        guard case .user(let app, _) = caller else { return }
        guard try await roomMembership(app, roomId: roomId) == .open else { throw roomClosed(roomId) }
    }

    /// 403 `room_closed`: a user joins only open rooms.
    func roomClosed(_ roomId: String) -> HTTPError {
        HTTPError(
            status: 403,
            code: "room_closed",
            message: "Room '\(roomId)' is closed: only the app's backend adds its members"
        )
    }

    /// Who a membership the caller makes is recorded as made by: closing a room keeps only the backend's.
    func membershipOrigin(_ caller: Caller) -> RoomMember.Origin {
        caller.userId == nil ? .backend : .user
    }

    /// The rule that applies to the room: its own, else the app's.
    func roomMembership(_ app: Configuration.App, roomId: String) async throws -> RoomMembership {
        try await store.roomMembership(appId: app.id, roomId: roomId) ?? app.roomMembership
    }

    /// Whether the caller's calls count against ``Configuration/Limits``.
    func isLimited(_ caller: Caller) -> Bool {
        caller.userId != nil || caller.app.limits.limitBackend
    }

    /// Refuses a registration that would give `userId` more live devices than the app allows (a token the
    /// user already has live does not count again).
    /// - Throws: ``HTTPError`` 429 `rate_limited`.
    func checkDeviceLimit(_ caller: Caller, userId: String, token: PushToken) async throws {
        guard isLimited(caller) else { return }
        let app = caller.app
        if let device = try await store.device(appId: app.id, token: token), device.userId.isSameId(userId),
            device.state == .live
        {
            return
        }
        let live = try await store.liveDeviceCount(appId: app.id, userId: userId)
        guard live < app.limits.devicesPerUser else {
            throw rateLimited("devices", "'\(userId)' has \(live) devices; at most \(app.limits.devicesPerUser)")
        }
    }

    /// Refuses joins that would make `userId` a member of more rooms than the app allows.
    /// - Throws: ``HTTPError`` 429 `rate_limited`.
    func checkRoomLimit(_ caller: Caller, userId: String, joining rooms: [String]) async throws {
        guard isLimited(caller), !rooms.isEmpty else { return }
        let app = caller.app
        var new = 0
        for room in Set(rooms.map { Array($0.utf8) }).map({ String(decoding: $0, as: UTF8.self) })
        where try await store.member(appId: app.id, roomId: room, userId: userId) == nil {
            new += 1
        }
        guard new > 0 else { return }
        let current = try await store.roomCount(appId: app.id, userId: userId)
        guard current + new <= app.limits.roomsPerUser else {
            throw rateLimited("rooms", "'\(userId)' is in \(current) rooms; at most \(app.limits.roomsPerUser)")
        }
    }

    /// Takes one webhook from the sender's bucket and counts a push to each recipient user.
    /// - Throws: ``HTTPError`` 429 `rate_limited` with `Retry-After`, counting nothing more; the store's error.
    func takeWebhookLimits(_ caller: Caller, senderId: String, recipients: [String]) async throws {
        guard isLimited(caller) else { return }
        let app = caller.app
        switch try await limiter.takeWebhook(
            appId: app.id,
            senderId: senderId,
            recipients: recipients,
            limits: app.limits
        ) {
        case nil: return
        case .webhooks(let wait):
            throw rateLimited(
                "webhooks",
                "'\(senderId)' may send \(app.limits.webhooksPerMinute) webhooks a minute",
                retryAfter: wait
            )
        case .pushesPerRecipient(let wait):
            throw rateLimited(
                "pushes_per_recipient",
                "'\(senderId)' may cause \(app.limits.pushesPerRecipientPerMinute) pushes a minute to one recipient",
                retryAfter: wait
            )
        }
    }

    /// 429 `rate_limited` naming the limit, counted in `pushrelay_rate_limited_total{limit}`.
    private func rateLimited(_ limit: String, _ message: String, retryAfter: Int = 60) -> HTTPError {
        metrics.recordRateLimited(limit: limit)
        return HTTPError(
            status: 429,
            code: "rate_limited",
            message: "Over the \(limit) limit: \(message)",
            headers: [("Retry-After", "\(retryAfter)")]
        )
    }
}
