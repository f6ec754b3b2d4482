import RelayCore
import RelayHTTP
import RelayOutbox
import RelayStore

/// The rules a user caller is held to that need the store (room membership) and the per-user limits: one
/// place for each, called by the handlers. The backend passes every membership rule, and the limits only
/// when its app sets `limits.limitBackend`.
extension RelayAPI {
    /// Refuses a user who is not a member of the room: of the relay's, or for an app with a stream of the
    /// Ditto mirror's (``RelayStore/DittoMirrorReads/isDittoMember(appId:roomId:userId:)``).
    /// - Throws: ``HTTPError`` 403 `not_a_member`.
    func requireMember(_ caller: Caller, roomId: String) async throws {
        guard let userId = caller.userId else { return }
        let app = caller.app
        let isMember =
            app.ditto != nil
            ? try await store.isDittoMember(appId: app.id, roomId: roomId, userId: userId)
            : try await store.member(appId: app.id, roomId: roomId, userId: userId) != nil
        guard isMember else {
            throw HTTPError(status: 403, code: "not_a_member", message: "You are not a member of room '\(roomId)'")
        }
    }

    /// Refuses a user a join of a closed room (one whose members the backend sets).
    /// - Throws: ``HTTPError`` 403 `room_closed`.
    func requireOpenRoom(_ caller: Caller, roomId: String) async throws {
        guard case .user(let app, _) = caller else { return }
        guard try await roomMembership(app, roomId: roomId) == .open else { throw roomClosed(roomId) }
    }

    /// 404 `member_not_found`: the user is not a member of the room the call names (a read position, a level).
    func memberNotFound(userId: String, roomId: String) -> HTTPError {
        HTTPError(
            status: 404,
            code: "member_not_found",
            message: "User '\(userId)' is not a member of room '\(roomId)'"
        )
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

    /// The device a webhook's `senderDeviceToken` names, to leave out of its deliveries: for the backend,
    /// whoever it is registered to; for a user, only when it is not another user's (that one is not the
    /// sender's phone, and leaving it out would change what the webhook answers and reaches: one user could
    /// tell another's token exists, or keep it from being notified).
    /// - Throws: what ``namedToken(_:platform:appId:field:)`` throws.
    func sendersDevice(_ caller: Caller, named raw: String) async throws -> PushToken? {
        let token = try await namedToken(raw, platform: nil, appId: caller.app.id, field: "senderDeviceToken")
        guard caller.userId != nil, let device = try await store.device(appId: caller.app.id, token: token) else {
            return token
        }
        return caller.mayRead(ownedBy: device.userId) ? token : nil
    }

    /// Whether the caller's calls count against ``Configuration/Limits``.
    func isLimited(_ caller: Caller) -> Bool {
        caller.userId != nil || caller.app.limits.limitBackend
    }

    /// The counts the store checks in a registration's or join's transaction for this caller: the app's
    /// ``Configuration/Limits`` when the caller is limited, else none.
    func userLimits(_ caller: Caller) -> UserLimits? {
        guard isLimited(caller) else { return nil }
        return UserLimits(devices: caller.app.limits.devicesPerUser, rooms: caller.app.limits.roomsPerUser)
    }

    /// Runs a store write that counts against ``userLimits(_:)``, answering its refusal: 409 `limit_reached`,
    /// without `Retry-After` (a count frees up only when the user deletes a device, leaves a room or drops a
    /// room's level, and a call that asks past the limit alone never succeeds), counted in `pushrelay_rate_limited_total` by the
    /// limit's name like the rates.
    /// - Throws: ``HTTPError`` 409 `limit_reached` for ``UserLimitExceeded``; the write's other errors.
    @discardableResult
    func withinUserLimits<T>(userId: String, _ write: () async throws -> T) async throws -> T {
        do {
            return try await write()
        } catch let exceeded as UserLimitExceeded {
            let one = exceeded.current == 1
            let (what, adding) =
                switch exceeded.limit {
                case .devices: (one ? "live device" : "live devices", "would add \(exceeded.adding)")
                case .rooms: (one ? "room" : "rooms", "would join \(exceeded.adding)")
                case .roomLevels:
                    (one ? "room with a level of its own" : "rooms with a level of their own", "would set one more")
                }
            metrics.recordRateLimited(limit: exceeded.limit.rawValue)
            throw HTTPError.limitReached(
                exceeded.limit.rawValue,
                "'\(userId)' has \(exceeded.current) \(what) and \(adding); at most \(exceeded.maximum)"
            )
        }
    }

    /// Takes one write from the user's writes bucket (``Configuration/Limits/writesPerMinute``): every
    /// registration, deletion, join and leave a limited caller makes.
    /// - Throws: ``HTTPError`` 429 `rate_limited` with `Retry-After`; the store's error.
    func takeWriteLimit(_ caller: Caller, userId: String) async throws {
        guard isLimited(caller) else { return }
        let app = caller.app
        if let refusal = try await limiter.take(.writes, appId: app.id, userId: userId, limits: app.limits) {
            throw rateLimited(refusal, userId: userId, limits: app.limits)
        }
    }

    /// Takes one read from the user's reads bucket (``Configuration/Limits/readsPerMinute``): every read a
    /// limited caller makes of what the store holds for a user, after its input is checked and before the
    /// store is asked. A user's reads count as its own; the backend's (with ``Configuration/Limits/limitBackend``)
    /// as the user the path names, and not at all when it names none.
    /// - Parameter userId: the user the path names; nil for the caller's own.
    /// - Throws: ``HTTPError`` 429 `rate_limited` with `Retry-After`; the store's error.
    func takeReadLimit(_ caller: Caller, userId: String? = nil) async throws {
        guard isLimited(caller), let userId = userId ?? caller.userId else { return }
        let app = caller.app
        if let refusal = try await limiter.take(.reads, appId: app.id, userId: userId, limits: app.limits) {
            throw rateLimited(refusal, userId: userId, limits: app.limits)
        }
    }

    /// Takes one write and one webhook from the sender's buckets, before the work that grows with the
    /// webhook (its room's members, its recipients), which they then pay for whatever its answer: a sender
    /// past its buckets causes none of it, however many of its calls are in flight at once.
    /// - Throws: ``HTTPError`` 429 `rate_limited` with `Retry-After`; the store's error.
    func takeWebhookTokens(_ caller: Caller, senderId: String) async throws {
        guard isLimited(caller) else { return }
        let app = caller.app
        if let refusal = try await limiter.takeWebhook(appId: app.id, senderId: senderId, limits: app.limits) {
            throw rateLimited(refusal, userId: senderId, limits: app.limits)
        }
    }

    /// Counts a push from the sender to each recipient user (``Configuration/Limits/pushesPerRecipientPerMinute``).
    /// - Throws: ``HTTPError`` 429 `rate_limited` with `Retry-After`, counting nothing; the store's error.
    func countRecipientPushes(_ caller: Caller, senderId: String, recipients: [String]) async throws {
        guard isLimited(caller), !recipients.isEmpty else { return }
        let app = caller.app
        if let refusal = try await limiter.countPushes(
            appId: app.id,
            senderId: senderId,
            recipients: recipients,
            limits: app.limits
        ) {
            throw rateLimited(refusal, userId: senderId, limits: app.limits)
        }
    }

    /// 429 `rate_limited` for what a rate limit refused.
    private func rateLimited(_ refusal: UserRateRefusal, userId: String, limits: Configuration.Limits) -> HTTPError {
        switch refusal {
        case .writes(let wait):
            rateLimited(
                "writes",
                "'\(userId)' may make \(limits.writesPerMinute) writes a minute, \(limits.writeBurst) at once",
                retryAfter: wait
            )
        case .webhooks(let wait):
            rateLimited(
                "webhooks",
                "'\(userId)' may send \(limits.webhooksPerMinute) webhooks a minute, \(limits.webhookBurst) at once",
                retryAfter: wait
            )
        case .reads(let wait):
            rateLimited(
                "reads",
                "'\(userId)' may make \(limits.readsPerMinute) reads a minute, \(limits.readBurst) at once",
                retryAfter: wait
            )
        case .pushesPerRecipient(let wait):
            rateLimited(
                "pushes_per_recipient",
                "'\(userId)' may cause \(limits.pushesPerRecipientPerMinute) pushes a minute to one recipient",
                retryAfter: wait
            )
        }
    }

    /// 429 `rate_limited` naming the limit (a fixed name), counted in `pushrelay_rate_limited_total{limit}`.
    func rateLimited(_ limit: String, _ message: String, retryAfter: Int) -> HTTPError {
        metrics.recordRateLimited(limit: limit)
        return .rateLimited(limit, message, retryAfter: retryAfter)
    }
}
