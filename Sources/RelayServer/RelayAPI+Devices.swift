import Foundation
import RelayCore
import RelayHTTP
import RelayStore

extension RelayAPI {
    /// Members per page of `GET /v1/rooms/{roomId}/members` by default.
    static let memberPageLimit = 1000
    /// Members per page of `GET /v1/rooms/{roomId}/members` at most.
    static let maxMemberPageLimit = 10_000

    /// `POST /v1/devices`: 201 new, 200 updated (a retired token is revived). A user registers for itself
    /// (`userId` omitted or its own) and joins only open rooms; a token another user had moves to it and is
    /// answered as a new one (201), while the backend sees 200; either way the device is dated from the move.
    /// The device is read by its platform's rules (``registrationToken(_:platform:app:)``); a web device
    /// registered before under another spelling of its endpoint is deleted (``WebSubscription/formerToken()``).
    func registerDevice(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let app = caller.app
        let body = try request.decode(DeviceRegistration.self)
        let platform = try Validation.platform(body.platform)
        let token = try registrationToken(body, platform: platform, app: app)
        let userId = try caller.actingUser(body.userId, field: "userId")
        var rooms = try (body.rooms ?? []).enumerated().map { index, room throws(HTTPError) in
            try Validation.id(room, field: "rooms[\(index)]")
        }
        // An app with a stream takes membership from Ditto: `rooms` is read and then ignored.
        if app.ditto != nil { rooms = [] }
        rooms = rooms.distinctIds()
        // A list no user may hold is refused before any room is looked up, and the write is taken before the
        // lookups: a user past its limits causes no work that grows with the list.
        if let limits = userLimits(caller), rooms.count > limits.rooms {
            metrics.recordRateLimited(limit: UserLimitExceeded.Limit.rooms.rawValue)
            throw HTTPError.limitReached(
                UserLimitExceeded.Limit.rooms.rawValue,
                "rooms names \(rooms.count) rooms; '\(userId)' may be in at most \(limits.rooms)"
            )
        }
        try await takeWriteLimit(caller, userId: userId)
        for room in rooms { try await requireOpenRoom(caller, roomId: room) }
        // A user is not told that a token it takes over was registered by someone else: that is a new
        // registration to it (201; the store dates a device moved to another user from the move), so a
        // stranger cannot probe which tokens exist.
        var heldByAnother = false
        if let user = caller.userId, let previous = try await store.device(appId: app.id, token: token) {
            heldByAnother = !previous.userId.isSameId(user)
        }
        // Before the registration, so the device it replaces does not count against the user's limit.
        if let former = body.subscription?.formerToken() {
            _ = try await store.deleteDevice(appId: app.id, token: former)
        }
        let (device, created) = try await withinUserLimits(userId: userId) {
            try await store.upsertDevice(
                appId: app.id,
                token: token,
                userId: userId,
                rooms: rooms,
                origin: membershipOrigin(caller),
                at: time.now,
                limits: userLimits(caller)
            )
        }
        if eventLines.admit(reporting: logger) {
            logger.info(
                created ? "device registered" : "device updated",
                [
                    "app.id": app.id, "token.suffix": token.suffix, "device.platform": platform.rawValue,
                    "request.id": request.id,
                ]
            )
        }
        return try .json(status: created || heldByAnother ? 201 : 200, DeviceView(device))
    }

    /// The token of a registration: `token` read by `platform`'s rules (`platform`, default `ios`); an iOS
    /// token carries its APNs `environment` (only iOS devices have one); a web device is its `subscription`
    /// (``WebSubscription``), with no `token`.
    /// - Throws: ``HTTPError`` 400 for a missing, refused or misplaced field (`invalid_subscription` for a
    ///   subscription), 422 `platform_not_configured` when the app has no settings for the platform.
    private func registrationToken(
        _ body: DeviceRegistration,
        platform: Platform,
        app: Configuration.App
    ) throws(HTTPError) -> PushToken {
        guard platform == .web else {
            if body.subscription != nil {
                throw .badRequest(code: "invalid_field", message: "subscription is only for a web device")
            }
            guard let raw = body.token else { throw .badRequest(code: "missing_field", message: "token is required") }
            let token = try Validation.token(raw, platform: platform)
            guard platform == .android else {
                return try Validation.registered(
                    token,
                    environment: body.environment,
                    default: app.apns.defaultEnvironment
                )
            }
            guard app.fcm?.serviceAccountFile != nil else {
                throw notConfigured(app, "FCM settings (apps[].fcm)", platform)
            }
            // A web device's id read as an FCM token would take that device over by its id alone.
            if (try? WebPushToken(parsing: raw)) != nil {
                throw .badRequest(
                    code: "invalid_device_token",
                    message: "token: a web device's id ('\(WebPushToken.prefix)…') is no FCM registration token"
                )
            }
            if body.environment != nil {
                throw .badRequest(
                    code: "invalid_field",
                    message: "environment is an APNs setting; an android device has none"
                )
            }
            return token
        }
        guard let settings = app.webPush else {
            throw notConfigured(app, "Web Push settings (apps[].webPush)", platform)
        }
        if body.token != nil {
            throw .badRequest(
                code: "invalid_field",
                message: "a web device sends no token: its token is derived from its subscription"
            )
        }
        if body.environment != nil {
            throw .badRequest(code: "invalid_field", message: "environment is an APNs setting; a web device has none")
        }
        guard let subscription = body.subscription else {
            throw .badRequest(code: WebSubscription.invalidCode, message: "subscription is required for a web device")
        }
        return try subscription.token(settings: settings)
    }

    /// 422 `platform_not_configured`: the app lacks `settings` for `platform`.
    private func notConfigured(_ app: Configuration.App, _ settings: String, _ platform: Platform) -> HTTPError {
        HTTPError(
            status: 422,
            code: "platform_not_configured",
            message: "app '\(app.id)' has no \(settings), so it cannot reach \(platform.rawValue) devices"
        )
    }

    /// `DELETE /v1/devices/{token}[?platform=ios|android|web]`: 204, or 404 when the app has no such device (of
    /// that platform, when given); a user deletes only its own, and another user's is 404 to it as well, so
    /// a user cannot learn which tokens exist.
    func deleteDevice(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let platform = try request.query["platform"].map { value throws(HTTPError) in
            try Validation.platform(value, code: "invalid_query")
        }
        let token = try await namedToken(
            try parameters.require("token"),
            platform: platform,
            appId: caller.app.id,
            field: "token"
        )
        // The platform given names the tokens looked among: an iOS token asked for as android's is not found.
        let unknown = HTTPError.notFound(
            message: "No \(platform.map { "\($0.rawValue) " } ?? "")device with that token"
        )
        guard let device = try await store.device(appId: caller.app.id, token: token),
            platform.map({ $0 == device.platform }) ?? true, caller.mayRead(ownedBy: device.userId)
        else {
            throw unknown
        }
        try await takeWriteLimit(caller, userId: device.userId)
        guard try await store.deleteDevice(appId: caller.app.id, token: token) else { throw unknown }
        return .noContent
    }

    /// A token a call names without saying its platform for sure (a path, the sender's device): read by
    /// `platform`'s rules when given; else, since an FCM token is kept exactly and an APNs token normalized,
    /// the app's device whose token is exactly this text when there is one, else a web device's identity
    /// when the text starts `web-` (43 base64url characters must follow), else the APNs reading when the
    /// text reads as one, else the FCM reading.
    /// - Throws: ``HTTPError`` 400 `invalid_device_token` when the text is a token of no (or not the given)
    ///   platform.
    func namedToken(_ raw: String, platform: Platform?, appId: String, field: String) async throws -> PushToken {
        if let platform { return try Validation.token(raw, platform: platform, field: field) }
        if let exact = try? FCMRegistrationToken(parsing: raw),
            let device = try await store.device(appId: appId, token: .fcm(exact)), device.platform == .android
        {
            return device.token
        }
        // Past an FCM device of exactly this text, `web-` names a web device, and its errors are the web rules'.
        if raw.hasPrefix(WebPushToken.prefix) { return try Validation.token(raw, platform: .web, field: field) }
        if let apns = try? DeviceToken(parsing: raw) { return .apns(apns) }
        return try Validation.token(raw, platform: .android, field: field)
    }

    /// `GET /v1/users/{userId}/devices`: a user lists only its own.
    func userDevices(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let userId = try caller.actingUser(inPath: parameters)
        try await takeReadLimit(caller, userId: userId)
        let devices = try await store.devices(appId: caller.app.id, userId: userId)
        return try .json(DeviceList(devices: devices.map(DeviceView.init)))
    }

    /// `PUT /v1/rooms/{roomId}/members/{userId}` with an optional `{"notify": "all" | "mentions" | "none" |
    /// "default"}` (or the deprecated `{"muted": Bool}`): 204. The backend adds anyone (a membership closing
    /// the room keeps); a user joins only as itself and only open rooms, and sets its own level in any room it
    /// is a member of. An app with a stream takes only a level (``setDittoRoomLevel(_:roomId:userId:_:)``).
    func joinRoom(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let (caller, roomId, userId) = try await membershipCall(request, parameters)
        let update = request.body.isEmpty ? MembershipUpdate() : try request.decode(MembershipUpdate.self)
        let change = try update.levelChange()
        if caller.app.ditto != nil {
            return try await setDittoRoomLevel(caller, roomId: roomId, userId: userId, change)
        }
        try await takeWriteLimit(caller, userId: userId)
        if caller.userId != nil, try await roomMembership(caller.app, roomId: roomId) == .closed {
            let isMember =
                if let change {
                    try await store.setRoomLevel(
                        appId: caller.app.id,
                        roomId: roomId,
                        userId: userId,
                        change,
                        scope: .members
                    )
                } else {
                    try await store.member(appId: caller.app.id, roomId: roomId, userId: userId) != nil
                }
            guard isMember else { throw roomClosed(roomId) }
            return .noContent
        }
        let member = try await withinUserLimits(userId: userId) {
            try await store.addMember(
                appId: caller.app.id,
                roomId: roomId,
                userId: userId,
                notify: change,
                origin: membershipOrigin(caller),
                at: time.now,
                limits: userLimits(caller)
            )
        }
        // nil: the room was closed between the check above and the write.
        guard member != nil else { throw roomClosed(roomId) }
        return .noContent
    }

    /// `DELETE /v1/rooms/{roomId}/members/{userId}`: 204 (also when the user was not a member). A user leaves
    /// only as itself, any room (also a closed one, and a membership the backend made).
    func leaveRoom(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let (caller, roomId, userId) = try await membershipCall(request, parameters)
        try requireMembershipFromRelay(caller, "Leaving a room")
        try await takeWriteLimit(caller, userId: userId)
        _ = try await store.removeMember(appId: caller.app.id, roomId: roomId, userId: userId)
        return .noContent
    }

    /// The caller, room and user of a join or leave: a user acts only as itself.
    private func membershipCall(
        _ request: HTTPRequest,
        _ parameters: RouteParameters
    ) async throws -> (Caller, roomId: String, userId: String) {
        let caller = try await directory.authenticate(request)
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        let userId = try caller.actingUser(inPath: parameters)
        return (caller, roomId, userId)
    }

    /// `GET /v1/rooms/{roomId}/members?offset=N&limit=M`: `{"members": [userId]}` by user id, a page of at most
    /// `limit` (1...10,000, default 1000) from the `offset`-th (default 0), and `nextOffset` while more follow;
    /// a user must be a member. For an app with a stream the members are the Ditto mirror's
    /// (``RelayStore/DittoMirrorReads/dittoMembers(appId:roomId:offset:limit:)``), with `source` `ditto`.
    /// - Throws: ``HTTPError`` 400 `invalid_query` for a limit or offset out of range.
    func roomMembers(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        let limit =
            try Validation.queryInteger(request, "limit", in: 1...Self.maxMemberPageLimit) ?? Self.memberPageLimit
        let offset = try Validation.queryInteger(request, "offset", in: 0...Int(Int32.max)) ?? 0
        try await takeReadLimit(caller)
        try await requireMember(caller, roomId: roomId)
        // One more than the page tells whether more follow.
        let fromDitto = caller.app.ditto != nil
        let members =
            fromDitto
            ? try await store.dittoMembers(appId: caller.app.id, roomId: roomId, offset: offset, limit: limit + 1)
            : try await store.members(appId: caller.app.id, roomId: roomId, offset: offset, limit: limit + 1)
                .map(\.userId)
        return try .json(
            MemberList(
                members: Array(members.prefix(limit)),
                nextOffset: members.count > limit ? offset + limit : nil,
                source: fromDitto ? "ditto" : nil
            )
        )
    }

    /// `PUT /v1/rooms/{roomId}` `{"membership": "open" | "closed"}` (backend only): 200 with the room. Closing
    /// removes the memberships users made themselves; the ones the backend made stay.
    func setRoom(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        try caller.requireBackend("Setting a room's membership")
        try requireMembershipFromRelay(caller, "Setting a room's membership")
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        let body = try request.decode(RoomSettings.self)
        try await store.setRoomMembership(
            appId: caller.app.id,
            roomId: roomId,
            membership: body.membership,
            at: time.now
        )
        return try .json(RoomView(roomId: roomId, membership: body.membership.rawValue))
    }

    /// `GET /v1/rooms/{roomId}`: the room's membership rule (its own, else the app's); a user must be a member.
    /// For an app with a stream, the mirrored room (``dittoRoomView(_:roomId:)``).
    func room(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        try await takeReadLimit(caller)
        try await requireMember(caller, roomId: roomId)
        if caller.app.ditto != nil { return try .json(try await dittoRoomView(caller, roomId: roomId)) }
        let membership = try await roomMembership(caller.app, roomId: roomId)
        return try .json(RoomView(roomId: roomId, membership: membership.rawValue))
    }
}
