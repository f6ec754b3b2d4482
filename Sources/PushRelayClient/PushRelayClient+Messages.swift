import Foundation

extension PushRelayClient {
    /// Forwards the chat SDK's `dittoChat(_:didSendMessage:inRoom:)`: the relay notifies the room's other
    /// members (`POST /v1/webhooks/did-send-message`), showing `roomName` as the title and
    /// "`senderName`: `text`" as the body.
    ///
    /// The call carries a fresh `Idempotency-Key`, the same on every retry of it, so a retry after a lost
    /// answer never notifies twice.
    ///
    /// - Parameters:
    ///   - roomId: the SDK room's `id`; a tap on the notification opens it (`dittoChatRoomId`).
    ///   - roomName: the room's display name (`room.name`).
    ///   - senderName: the signed-in user's display name.
    ///   - text: the message text.
    ///   - details: the message's id, mentions and recipients, when the app knows them.
    /// - Returns: the relay's notification id and how many devices it is sending to.
    /// - Throws: ``PushRelayError``.
    @discardableResult
    public func didSendMessage(
        roomId: String,
        roomName: String?,
        senderName: String?,
        text: String,
        details: MessageDetails = MessageDetails()
    ) async throws -> MessageReceipt {
        var body = messageBody(roomId: roomId, roomName: roomName, senderName: senderName, details: details)
        body.text = text
        return try await sendMessage("did-send-message", body)
    }

    /// Forwards the chat SDK's `dittoChat(_:didSendImageMessageInRoom:)`
    /// (`POST /v1/webhooks/did-send-image-message`): the body is `caption`, or "📷 Image" without one.
    ///
    /// - Parameters:
    ///   - imageURL: an https URL the app's notification service extension may attach; the relay refuses
    ///     other schemes with 400 `invalid_field`.
    ///   - roomId, roomName, senderName, details: as for
    ///     ``didSendMessage(roomId:roomName:senderName:text:details:)``.
    /// - Returns: the relay's notification id and how many devices it is sending to.
    /// - Throws: ``PushRelayError``.
    @discardableResult
    public func didSendImageMessage(
        roomId: String,
        roomName: String?,
        senderName: String?,
        caption: String? = nil,
        imageURL: URL? = nil,
        details: MessageDetails = MessageDetails()
    ) async throws -> MessageReceipt {
        var body = messageBody(roomId: roomId, roomName: roomName, senderName: senderName, details: details)
        body.caption = caption
        body.imageUrl = imageURL?.absoluteString
        return try await sendMessage("did-send-image-message", body)
    }

    /// What both webhooks carry: the room, the sender (this user), this device's token and the details.
    private func messageBody(
        roomId: String,
        roomName: String?,
        senderName: String?,
        details: MessageDetails
    ) -> MessageBody {
        MessageBody(
            roomId: roomId,
            roomName: roomName,
            senderId: userId,
            senderName: senderName,
            senderDeviceToken: deviceToken,
            messageId: details.messageId,
            recipients: details.recipients,
            mentions: details.mentions.isEmpty ? nil : details.mentions
        )
    }

    private func sendMessage(_ webhook: String, _ body: MessageBody) async throws -> MessageReceipt {
        var call = try RelayCall(method: "POST", path: ["v1", "webhooks", webhook], json: body)
        call.idempotencyKey = UUID().uuidString.lowercased()
        let answer = try await transport.send(call)
        return try answer.decode(MessageReceipt.self)
    }
}
