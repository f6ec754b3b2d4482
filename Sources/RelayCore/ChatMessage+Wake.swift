extension ChatMessage {
    /// The payload of a wake push for this message: `aps` holds only `content-available: 1` (no alert, sound
    /// or badge: Apple, "Pushing background updates to your App"), beside the SDK's keys `dittoChatRoomId`
    /// and `dittoChatMessageId`, which the app uses to find the message once Ditto synced. Nil without a
    /// message id: such a message cannot wake (``WakePolicy``).
    public func wakePayload() -> ChatPayload? {
        guard let messageId, removedMessageId == nil else { return nil }
        return ChatPayload(aps: APS(contentAvailable: 1), dittoChatRoomId: roomId, dittoChatMessageId: messageId)
    }
}
