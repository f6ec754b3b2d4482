import APNsMock
import Foundation
import Testing

/// Issue 4: privacy mode payloads and per-member mute, end to end.
@Suite struct PrivacyAndMuteTests {
    @Test func aPrivacyAppSendsNoMessageTextRoomOrSenderNameButKeepsTheDittoKeys() async throws {
        try await withRelayAndMock(configure: { $0.apps[0].privacy = true }) { relay in
            let room = "room-private", token = randomToken()
            try await relay.register(token, user: "reader", rooms: [room])
            let text = "the secret plan is at noon"
            let message = try await relay.webhook([
                "roomId": room, "senderId": "writer", "text": text, "messageId": "private-1",
                "roomName": "Project Falcon", "senderName": "Winifred",
            ])
            let image = try await relay.webhook(
                [
                    "roomId": room, "senderId": "writer", "caption": "floor plan of the vault",
                    "messageId": "private-2",
                    "roomName": "Project Falcon", "senderName": "Winifred", "imageUrl": "https://example.com/vault.png",
                ],
                image: true
            )
            _ = try await relay.settled(message.notificationId)
            _ = try await relay.settled(image.notificationId)

            let requests = relay.requests(to: token)
            try #require(requests.count == 2)
            for (request, messageId) in zip(
                requests.sorted { ($0.header("apns-collapse-id") ?? "") < ($1.header("apns-collapse-id") ?? "") },
                ["private-1", "private-2"]
            ) {
                let raw = String(decoding: request.body, as: UTF8.self)
                for secret in [text, "secret", "Falcon", "Winifred", "floor plan", "vault"] {
                    #expect(!raw.contains(secret), "\(messageId) payload leaks '\(secret)': \(raw)")
                }
                let payload = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                let aps = try #require(payload["aps"] as? [String: Any])
                let alert = try #require(aps["alert"] as? [String: Any])
                #expect(alert["body"] as? String == "New message")
                #expect(alert["title"] == nil)
                #expect(payload["dittoChatRoomId"] as? String == room)
                #expect(payload["dittoChatMessageId"] as? String == messageId)
            }
        }
    }

    @Test func aMutedMemberGetsNothingForThatRoomUntilUnmutedAndStillGetsOtherRooms() async throws {
        try await withRelayAndMock { relay in
            let roomA = "room-a", roomB = "room-b"
            let quiet = [randomToken(), randomToken()], loud = randomToken()
            for token in quiet { try await relay.register(token, user: "quiet", rooms: [roomA, roomB]) }
            try await relay.register(loud, user: "loud", rooms: [roomA])

            let muted = try await relay.call("PUT", "/v1/rooms/\(roomA)/members/quiet", json: ["muted": true])
            #expect(muted.status == 204, "\(muted.text)")
            // Joining again without a body keeps the mute.
            try await relay.join(roomA, "quiet")
            let members = try await relay.call("GET", "/v1/rooms/\(roomA)/members")
            #expect(members.text.contains("\"quiet\""), "a muted member is still a member: \(members.text)")

            func send(_ room: String, _ messageId: String) async throws -> WebhookAnswer {
                let answer = try await relay.webhook([
                    "roomId": room, "senderId": "s", "text": "x", "messageId": messageId,
                ])
                _ = try await relay.settled(answer.notificationId)
                return answer
            }
            #expect(try await send(roomA, "mute-a1").devices == 1)
            #expect(try await send(roomB, "mute-b1").devices == 2)

            let unmuted = try await relay.call("PUT", "/v1/rooms/\(roomA)/members/quiet", json: ["muted": false])
            #expect(unmuted.status == 204, "\(unmuted.text)")
            #expect(try await send(roomA, "mute-a2").devices == 3)

            for token in quiet {
                let ids = relay.requests(to: token).compactMap { $0.header("apns-collapse-id") }
                #expect(ids.sorted() == ["dittochat-msg-mute-a2", "dittochat-msg-mute-b1"])
            }
            #expect(
                relay.requests(to: loud).compactMap { $0.header("apns-collapse-id") }.sorted() == [
                    "dittochat-msg-mute-a1", "dittochat-msg-mute-a2",
                ]
            )
            #expect(relay.mock.requests.count == 6)
        }
    }
}
