import Foundation
import Testing

/// Memberships of closed rooms, mutes against a user's `recipients`, and what a push shows of names, end to
/// end over the real server and the mock APNs.
@Suite struct ClosedRoomTests {
    static let malloryPhone = String(repeating: "e5", count: 32)
    static let bobPhone = String(repeating: "b2", count: 32)

    /// Mallory joins an open room herself; the backend adds Bob, then closes the room: only Bob gets its
    /// messages, Mallory cannot come back, and Bob can still leave.
    @Test func aClosedRoomReachesOnlyTheMembersItsBackendSet() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            let own = try await relay.call("POST", "/v1/devices", json: ["token": Self.malloryPhone], user: "mallory")
            #expect(own.status == 201, "\(own.text)")
            #expect(try await relay.call("PUT", "/v1/rooms/board/members/mallory", user: "mallory").status == 204)
            try await relay.register(Self.bobPhone, user: "bob")
            try await relay.join("board", "bob")
            let open = try await relay.webhook(["roomId": "board", "senderId": "ceo", "text": "open", "messageId": "o"])
            #expect(open.devices == 2)
            _ = try await relay.settled(open.notificationId)

            #expect(try await relay.call("PUT", "/v1/rooms/board", json: ["membership": "closed"]).status == 200)
            let members = try await relay.call("GET", "/v1/rooms/board/members")
            #expect(members.text == #"{"members":["bob"]}"#)
            let closed = try await relay.webhook([
                "roomId": "board", "senderId": "ceo", "text": "the merger", "messageId": "c",
            ])
            #expect(closed.devices == 1)
            _ = try await relay.settled(closed.notificationId)
            #expect(
                relay.requests(to: Self.bobPhone).compactMap { $0.header("apns-collapse-id") }.sorted() == [
                    "dittochat-msg-c", "dittochat-msg-o",
                ]
            )
            let mallorys = relay.requests(to: Self.malloryPhone).compactMap { $0.header("apns-collapse-id") }
            #expect(mallorys == ["dittochat-msg-o"])

            // Mallory cannot come back, by joining or by registering into the room, nor read it.
            let rejoin = try await relay.call("PUT", "/v1/rooms/board/members/mallory", user: "mallory")
            #expect(rejoin.status == 403 && rejoin.error?.code == "room_closed")
            let register = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": Self.malloryPhone, "rooms": ["board"]],
                user: "mallory"
            )
            #expect(register.status == 403 && register.error?.code == "room_closed")
            let read = try await relay.call("GET", "/v1/rooms/board/members", user: "mallory")
            #expect(read.status == 403 && read.error?.code == "not_a_member")

            // Bob, a member the backend made, leaves the closed room himself.
            #expect(try await relay.call("DELETE", "/v1/rooms/board/members/bob", user: "bob").status == 204)
            let after = try await relay.webhook(["roomId": "board", "senderId": "ceo", "text": "bye", "messageId": "a"])
            #expect(after.devices == 0)
        }
    }

    /// A user's `recipients` skip a member who muted the room, with the same answer as for any recipient; the
    /// backend's `recipients` still reach that member.
    @Test func aUsersRecipientsSkipAMemberWhoMutedTheRoom() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            let (alice, bob, carol) = (randomToken(), randomToken(), randomToken())
            try await relay.register(alice, user: "alice", rooms: ["team"])
            try await relay.register(bob, user: "bob", rooms: ["team"])
            try await relay.register(carol, user: "carol", rooms: ["team"])
            let mute = try await relay.call("PUT", "/v1/rooms/team/members/carol", json: ["muted": true], user: "carol")
            #expect(mute.status == 204)

            let toBoth = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "team", "text": "psst", "recipients": ["bob", "carol"], "messageId": "u"],
                user: "alice"
            )
            #expect(toBoth.status == 202, "\(toBoth.text)")
            let answer = try toBoth.decode(WebhookAnswer.self)
            #expect(answer.devices == 1)
            let toCarol = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "team", "text": "psst", "recipients": ["carol"], "messageId": "u2"],
                user: "alice"
            )
            #expect(toCarol.status == 202, "\(toCarol.text)")
            #expect(try toCarol.decode(WebhookAnswer.self).devices == 0)
            _ = try await relay.settled(answer.notificationId)

            let backend = try await relay.webhook([
                "roomId": "team", "senderId": "alice", "text": "urgent", "recipients": ["carol"], "messageId": "b",
            ])
            #expect(backend.devices == 1)
            _ = try await relay.settled(backend.notificationId)
            #expect(relay.requests(to: bob).compactMap { $0.header("apns-collapse-id") } == ["dittochat-msg-u"])
            #expect(relay.requests(to: carol).compactMap { $0.header("apns-collapse-id") } == ["dittochat-msg-b"])
        }
    }

    /// What a user wrote arrives without controls or direction overrides; the text keeps its lines, names
    /// are one line.
    @Test func namesAndTextsArriveClean() async throws {
        try await withRelayAndMock { relay in
            let phone = randomToken()
            try await relay.register(phone, user: "reader", rooms: ["r"])
            let sent = try await relay.webhook([
                "roomId": "r", "senderId": "eve", "messageId": "m", "roomName": "Board\nMeeting\u{2067}",
                "senderName": "\u{202E}Eve\u{1B}", "text": "line one\r\nline two\u{202D}",
            ])
            _ = try await relay.settled(sent.notificationId)
            let request = try #require(relay.requests(to: phone).first)
            let payload = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            let alert = try #require((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])
            #expect(alert["title"] as? String == "Board Meeting")
            #expect(alert["body"] as? String == "Eve: line one\nline two")
        }
    }
}
