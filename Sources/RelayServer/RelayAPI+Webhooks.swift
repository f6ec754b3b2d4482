import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayOutbox
import RelayStore

extension RelayAPI {
    /// The paths of the SDK's two webhooks.
    static let messagePath = "/v1/webhooks/did-send-message"
    static let imageMessagePath = "/v1/webhooks/did-send-image-message"
    /// The routes a message arrives by, whose 500 and 503 answers lose it for a sender that does not retry
    /// (`PushRelayMessagesRefused`): their series of those statuses start at zero.
    static let messageRoutes = [messagePath, imageMessagePath, dittoEventsPath]

    /// The most recipients one webhook may name.
    static let maxRecipients = 10_000
    /// The most users one webhook may mention.
    static let maxMentions = 1000
    /// Deliveries per page of `GET /v1/notifications/{notificationId}` at most (and by default).
    static let deliveryPageLimit = 1000
    /// The longest room or sender name taken, in BYTES: pushes show at most
    /// ``RelayCore/ChatMessage/maxShownNameCharacters`` of it, cut in the rendering.
    static let maxNameBytes = 16_384

    /// `POST /v1/webhooks/did-send-message` / `did-send-image-message`: commits the notification (the chat
    /// message as kept, ``RelayCore/ChatMessage/kept``, rendered per platform when each delivery is sent) and
    /// one delivery per recipient device in one transaction, counted against the sender's daily budget, then
    /// answers 202
    /// (200 with the first notification's id when the same message, or the same `Idempotency-Key` and
    /// request, was already accepted; 422 `idempotency_key_reused` for that key with another request).
    func webhook(_ request: HTTPRequest, kind: NotificationKind) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let app = caller.app
        // A user sends as itself: its tokens are taken before its body is read, so a user past its buckets
        // costs no reading of a body of thousands of names. The backend's, limited as the sender it names
        // (`limitBackend`), once the body names it.
        if let userId = caller.userId { try await takeWebhookTokens(caller, senderId: userId) }
        // A user's own credential authenticates its webhooks; the secret signs the backend's.
        var signedAt: Int?
        if case .backend = caller { signedAt = try verifiedSignature(request, of: app) }
        // A signed request is also keyed by what was signed: replayed within the signature's window, however
        // its header is written and whatever Idempotency-Key it carries, it is answered from the first.
        let idempotencyKey = try IdempotencyKeyHeader.idempotencyKey(
            request,
            scope: caller.scope,
            kind: kind,
            signedAt: signedAt
        )
        let body = try request.decode(MessageWebhook.self, shownFields: MessageWebhook.fieldNames(of: kind))
        let senderId = try caller.actingUser(body.senderId, field: "senderId", refusal: "forbidden_sender")
        if caller.userId == nil { try await takeWebhookTokens(caller, senderId: senderId) }
        let message = try chatMessage(body, senderId: senderId, kind: kind)
        var excludeToken: PushToken?
        if let sender = body.senderDeviceToken {
            excludeToken = try await sendersDevice(caller, named: sender)
        }
        let recipients = try body.recipients.map { list throws(HTTPError) in
            // An empty list is more likely a backend's unset list than a message meant for nobody.
            guard !list.isEmpty else {
                throw .badRequest(
                    code: "invalid_field",
                    message: "recipients must name at least one user; leave it out to notify the room's members"
                )
            }
            return try Self.userIds(list, field: "recipients", max: Self.maxRecipients)
        }
        let mentions = try body.mentions.map { list throws(HTTPError) in
            try Self.userIds(list, field: "mentions", max: Self.maxMentions)
        }
        // The message reaches its recipients through the app's Ditto stream, whose membership the relay does not
        // check here; the call took from the sender's write and webhook buckets, as every webhook does.
        if app.ditto != nil { return try Self.dittoWebhookAnswer() }
        try await authorizeWebhook(caller, message: message, recipients: recipients)
        let now = time.now
        let notification = NewNotification(
            id: UUID(),
            appId: app.id,
            message: app.privacy ? message.withoutTexts : message.kept,
            sendAs: app.topic,
            expiration: app.ttlSeconds == 0 ? 0 : Int(now.timeIntervalSince1970) + app.ttlSeconds,
            createdAt: now,
            budget: isLimited(caller)
                ? DailyBudget(notifications: app.limits.notificationsPerDay, bytes: app.limits.storedBytesPerDay)
                : nil,
            delaySeconds: app.pushDelaySeconds
        )
        let outcome = try await store.createNotification(
            notification,
            recipients: RecipientSelection(
                roomId: message.roomId,
                userIds: recipients,
                overridesLevels: caller.userId == nil,
                mentionedUserIds: mentions ?? [],
                excludeUserId: message.senderId,
                excludeToken: excludeToken
            ),
            idempotencyKey: idempotencyKey
        )
        let accepted = WebhookAccepted(
            notificationId: outcome.notificationId.lowercasedString,
            devices: outcome.devices
        )
        switch outcome {
        case .created:
            metrics.recordWebhook(kind == .message ? "did_send_message" : "did_send_image_message", app: app.id)
            dispatcher.wake()
            if eventLines.admit(reporting: logger) {
                logger.info(
                    "webhook accepted",
                    [
                        "app.id": app.id, "notification.id": outcome.notificationId.lowercasedString,
                        "devices": accepted.devices, "request.id": request.id,
                    ]
                )
            }
            return try .json(status: 202, accepted)
        case .duplicate:
            return try .json(status: 200, accepted)
        case .conflict(_, let roomId, let senderId):
            // A user learns nothing of a message it may not read: not its room, not its sender.
            let which = caller.userId == nil ? " (room '\(roomId)', sender '\(senderId)')" : ""
            throw HTTPError.conflict(
                code: "message_id_conflict",
                message: "messageId was already accepted for another message\(which); nothing is sent"
            )
        case .overBudget(_, let wait):
            throw rateLimited(
                "daily_budget",
                "'\(message.senderId)' may record \(app.limits.notificationsPerDay) notifications and \(app.limits.storedBytesPerDay) bytes a UTC day",
                retryAfter: wait
            )
        case .keyReused:
            throw HTTPError(
                status: 422,
                code: "idempotency_key_reused",
                message:
                    "\(IdempotencyKeyHeader.name) was used in the last \(IdempotencyKey.retention.components.seconds / 3600) hours for another request (another body or route); nothing is sent"
            )
        }
    }

    /// A user sends only to a room it is a member of, and names only members as recipients (those whose level
    /// leaves the message out are left out silently when the deliveries are made); then the sender's limits
    /// count a push to each user it names, or to each member whose own level for the room is not `none`: a
    /// recipient counts whatever its level, so the limits do not tell a user who muted the room. The
    /// webhook's own tokens were taken before (``takeWebhookTokens(_:senderId:)``).
    /// - Throws: ``HTTPError`` 403 `not_a_member` or `recipient_not_a_member`, 429 `rate_limited`.
    private func authorizeWebhook(_ caller: Caller, message: ChatMessage, recipients: [String]?) async throws {
        let app = caller.app
        if caller.userId != nil {
            try await requireMember(caller, roomId: message.roomId)
            if let recipients {
                let outside = try await store.nonMembers(appId: app.id, roomId: message.roomId, userIds: recipients)
                if let first = outside.first {
                    throw HTTPError(
                        status: 403,
                        code: "recipient_not_a_member",
                        message: "recipient '\(first)' is not a member of room '\(message.roomId)'"
                    )
                }
            }
        }
        guard isLimited(caller) else { return }
        var reached = recipients ?? []
        if recipients == nil {
            reached = try await store.members(appId: app.id, roomId: message.roomId).filter {
                $0.notify != NotifyLevel.none
            }
            .map(\.userId)
        }
        try await countRecipientPushes(
            caller,
            senderId: message.senderId,
            recipients: reached.filter { !$0.isSameId(message.senderId) }
        )
    }

    /// A webhook's list of user ids (`field`), at most `max`, each a valid id, each once (a user named twice
    /// counts, and is pushed, once).
    /// - Throws: ``HTTPError`` 400 `invalid_field` for a longer list or an invalid id.
    private static func userIds(_ list: [String], field: String, max: Int) throws(HTTPError) -> [String] {
        guard list.count <= max else {
            throw .badRequest(code: "invalid_field", message: "\(field) must name at most \(max) users")
        }
        var ids: [String] = []
        for (index, user) in list.enumerated() { ids.append(try Validation.id(user, field: "\(field)[\(index)]")) }
        return ids.distinctIds()
    }

    private func chatMessage(
        _ body: MessageWebhook,
        senderId: String,
        kind: NotificationKind
    ) throws(HTTPError) -> ChatMessage {
        let content: ChatMessage.Content
        switch kind {
        case .message:
            // One body type serves both webhooks; each refuses the other's fields as it refuses unknown ones.
            if let field = body.caption != nil ? "caption" : body.imageUrl != nil ? "imageUrl" : nil {
                throw .badRequest(
                    code: "unknown_field",
                    message: "'\(field)' is a field of did-send-image-message, not of did-send-message"
                )
            }
            guard let text = body.text else { throw .badRequest(code: "missing_field", message: "text is required") }
            try Validation.visible(text, field: "text")
            content = .text(text)
        case .imageMessage:
            if body.text != nil {
                throw .badRequest(
                    code: "unknown_field",
                    message: "'text' is a field of did-send-message; an image message takes 'caption'"
                )
            }
            content = .image(
                caption: try Validation.text(body.caption, field: "caption", maxBytes: 16_384),
                imageURL: try Validation.imageURL(body.imageUrl, field: "imageUrl")
            )
        case .removal:
            throw .badRequest(code: "invalid_kind", message: "removals are made by the relay, never by a webhook")
        }
        return ChatMessage(
            roomId: try Validation.id(body.roomId, field: "roomId"),
            senderId: senderId,
            content: content,
            messageId: try Validation.optionalId(body.messageId, field: "messageId"),
            roomName: try Validation.text(body.roomName, field: "roomName", maxBytes: Self.maxNameBytes),
            senderName: try Validation.text(body.senderName, field: "senderName", maxBytes: Self.maxNameBytes)
        )
    }

    /// `GET /v1/notifications/{notificationId}?offset=N&limit=M`: the notification and one entry per device
    /// (with its token suffix for the backend; a user sees no other user's tokens), a page of at most `limit` (1...1000, default 1000) from the `offset`-th (default 0), and
    /// `nextOffset` while more follow.
    /// - Throws: ``HTTPError`` 400 `invalid_query` for a limit or offset out of range, 404 for an unknown id
    ///   and, to a user, for another sender's notification.
    func notification(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        let unknown = HTTPError.notFound(message: "No notification with that id")
        guard let id = UUID(canonical: try parameters.require("notificationId")) else { throw unknown }
        let page = try Self.deliveryPage(request)
        try await takeReadLimit(caller)
        return try await notificationView(caller, id: id, page: page, unknown: unknown)
    }

    /// `GET /v1/notifications?messageId=<id>`: the notification a message id names, as
    /// ``notification(_:_:)`` shows it (`offset`, `limit` alike); 404 when none is kept, or, for a user, when
    /// another user sent it.
    func notificationByMessage(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let caller = try await directory.authenticate(request)
        guard let given = request.query["messageId"] else {
            throw HTTPError.badRequest(
                code: "invalid_query",
                message:
                    "messageId is required (GET /v1/notifications?messageId=<id>, or /v1/notifications/<notification id>)"
            )
        }
        let messageId = try Validation.id(given, field: "messageId", code: "invalid_query")
        let page = try Self.deliveryPage(request)
        try await takeReadLimit(caller)
        let unknown = HTTPError.notFound(message: "No notification with that message id")
        guard let id = try await store.notificationId(appId: caller.app.id, messageId: messageId) else {
            throw unknown
        }
        return try await notificationView(caller, id: id, page: page, unknown: unknown)
    }

    /// The page of a notification's deliveries the query asks for: `limit` (1...``deliveryPageLimit``,
    /// default ``deliveryPageLimit``) from the `offset`-th (default 0).
    /// - Throws: ``HTTPError`` 400 `invalid_query` for either out of its range.
    private static func deliveryPage(_ request: HTTPRequest) throws -> (limit: Int, offset: Int) {
        let limit = try Validation.queryInteger(request, "limit", in: 1...deliveryPageLimit)
        let offset = try Validation.queryInteger(request, "offset", in: 0...Int(Int32.max))
        return (limit ?? deliveryPageLimit, offset ?? 0)
    }

    /// The notification `id` of the caller's app with `page` of its deliveries, when the caller may read it;
    /// else `unknown`, the answer for a notification that does not exist.
    private func notificationView(
        _ caller: Caller,
        id: UUID,
        page: (limit: Int, offset: Int),
        unknown: HTTPError
    ) async throws -> HTTPResponse {
        guard
            let (summary, deliveries) = try await store.notification(
                appId: caller.app.id,
                id: id,
                limit: page.limit,
                offset: page.offset
            ), caller.mayRead(ownedBy: summary.senderId)
        else { throw unknown }
        let view = NotificationView(summary, deliveries, offset: page.offset, showingDevices: caller.userId == nil)
        return try .json(view)
    }
}
