import RelayCore

extension ChatPayload {
    /// The APNs alert payload of `shown`: `aps` with alert title and body, `badge` when there is one, sound
    /// "default" and thread-id = room id; an image message adds mutable-content 1 (the app's notification
    /// service extension attaches `imageUrl`). Top-level `dittoChatRoomId` always, `dittoChatMessageId` when
    /// known. A removal renders as `aps` `content-available: 1` and the room id (sent as a
    /// ``RemovalPayload`` instead). Uncut: ``encoded(limit:)`` cuts to APNs' limit.
    public init(shown: ShownMessage) {
        guard shown.removedMessageId == nil else {
            self.init(aps: APS(badge: shown.badge, contentAvailable: 1), dittoChatRoomId: shown.roomId)
            return
        }
        var aps = APS(
            alert: .init(title: shown.title, body: shown.body),
            badge: shown.badge,
            sound: "default",
            threadId: shown.roomId
        )
        if shown.kind == .imageMessage { aps.mutableContent = 1 }
        self.init(
            aps: aps,
            dittoChatRoomId: shown.roomId,
            dittoChatMessageId: shown.messageId,
            imageUrl: shown.imageURL
        )
    }

    /// The payload of a wake push for `shown`: `aps` holds only `content-available: 1` (no alert, sound or
    /// badge: Apple, "Pushing background updates to your App"), beside the SDK's keys `dittoChatRoomId` and
    /// `dittoChatMessageId`, which the app uses to find the message once Ditto synced. Nil when `shown`
    /// cannot wake: no message id, or a removal (``RelayCore/ShownMessage/wakes`` without its mode).
    public init?(waking shown: ShownMessage) {
        guard let messageId = shown.messageId, shown.removedMessageId == nil else { return nil }
        self.init(aps: APS(contentAvailable: 1), dittoChatRoomId: shown.roomId, dittoChatMessageId: messageId)
    }
}

extension ChatMessage {
    /// This message's APNs alert payload, with no badge (``ChatPayload/init(shown:)``).
    public func payload() -> ChatPayload { ChatPayload(shown: shown) }

    /// This message's APNs wake payload (``ChatPayload/init(waking:)``); nil without a message id.
    public func wakePayload() -> ChatPayload? { ChatPayload(waking: shown) }
}
