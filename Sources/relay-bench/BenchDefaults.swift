import RelayCore

/// What every relay-bench command sends unless told otherwise: the fixture provider-token key, the topic and
/// the body `scripts/bench/curl-multi.c` sends, so all clients in one run do the same work.
enum BenchDefaults {
    static let keyFile = "fixtures/keys/AuthKey_ABC123DEFG.p8"
    static let keyId = "ABC123DEFG"
    static let teamId = "TEAM123456"
    static let topic = "com.example.chat"
    static let caFile = "fixtures/tls/ca.pem"
    /// The VAPID `sub` claim of the bench's web pushes.
    static let webPushSubject = "mailto:bench@localhost"
    /// The same bytes as `body` in scripts/bench/curl-multi.c.
    static let body =
        #"{"aps":{"alert":{"body":"Alice: hello","title":"Team"},"sound":"default","thread-id":"room-1"},"#
        + #""dittoChatRoomId":"room-1"}"#
    /// The device token h2load and the C loop post to (32 bytes, hex).
    static let deviceToken = "ce8be6272e43e85516033e24b4c289220eeda4879c477160b2545e95b68b5969"

    /// The text of the chat message the fan-out posts.
    static let text = "hello"

    /// The chat message `relay-bench fanout` posts to the seeded room, with message id `id`: what the
    /// client-only runs render their pushes from.
    static func chatMessage(id: String) -> ChatMessage {
        ChatMessage(
            roomId: SeedCommand.room,
            senderId: "bench-sender",
            content: .text(text),
            messageId: id,
            roomName: "Team",
            senderName: "Alice"
        )
    }
}
