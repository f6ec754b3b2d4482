import Foundation
import Testing

/// Two apps on one relay: one app's key never reaches the other's devices, members or notifications.
@Suite struct IsolationTests {
    @Test func anAppSeesAndReachesOnlyItsOwnDevices() async throws {
        try await withRelayAndMock(appCount: 2) { relay in
            let a = relay.apps[0], b = relay.apps[1]
            let room = "shared-room-id"
            let aliceToken = randomToken(), bobToken = randomToken()
            try await relay.register(aliceToken, user: "alice", rooms: [room], key: a.apiKey)
            let aMessage = try await relay.webhook(
                ["roomId": room, "senderId": "s", "text": "for A", "messageId": "iso-1"],
                key: a.apiKey
            )
            #expect(aMessage.devices == 1)
            _ = try await relay.settled(aMessage.notificationId, key: a.apiKey)

            // B sees nothing of A's.
            #expect(try await relay.devices(of: "alice", key: b.apiKey).isEmpty)
            let members = try await relay.call("GET", "/v1/rooms/\(room)/members", key: b.apiKey)
            #expect(members.status == 200 && members.text == #"{"members":[]}"#)
            let notification = try await relay.call(
                "GET",
                "/v1/notifications/\(aMessage.notificationId)",
                key: b.apiKey
            )
            #expect(notification.status == 404 && notification.error?.code == "not_found")
            let delete = try await relay.call("DELETE", "/v1/devices/\(aliceToken)", key: b.apiKey)
            #expect(delete.status == 404 && delete.error?.code == "not_found")
            let leave = try await relay.call("DELETE", "/v1/rooms/\(room)/members/alice", key: b.apiKey)
            #expect(leave.status == 204)
            // B's identical message id is B's own notification, and reaches none of A's devices.
            let bEmpty = try await relay.webhook(
                ["roomId": room, "senderId": "s", "text": "for B", "messageId": "iso-1"],
                key: b.apiKey
            )
            #expect(bEmpty.devices == 0 && bEmpty.notificationId != aMessage.notificationId)
            try await relay.register(bobToken, user: "bob", rooms: [room], key: b.apiKey)
            let bMessage = try await relay.webhook(
                ["roomId": room, "senderId": "s", "text": "for B again", "messageId": "iso-2"],
                key: b.apiKey
            )
            #expect(bMessage.devices == 1)
            _ = try await relay.settled(bMessage.notificationId, key: b.apiKey)
            #expect(relay.requests(to: aliceToken).count == 1)
            #expect(relay.requests(to: aliceToken).allSatisfy { $0.header("apns-topic") == a.topic })
            #expect(relay.requests(to: bobToken).map { $0.header("apns-topic") } == [b.topic])

            // A's data is intact and A can manage it.
            #expect(try await relay.devices(of: "alice", key: a.apiKey).map(\.token) == [aliceToken])
            let aMembers = try await relay.call("GET", "/v1/rooms/\(room)/members", key: a.apiKey)
            #expect(aMembers.text == #"{"members":["alice"]}"#)
            #expect(try await relay.call("DELETE", "/v1/devices/\(aliceToken)", key: a.apiKey).status == 204)
            #expect(try await relay.call("DELETE", "/v1/devices/\(aliceToken)", key: a.apiKey).status == 404)
            #expect(try await relay.call("DELETE", "/v1/rooms/\(room)/members/alice", key: a.apiKey).status == 204)
            let after = try await relay.call("GET", "/v1/rooms/\(room)/members", key: a.apiKey)
            #expect(after.text == #"{"members":[]}"#)
            #expect(try await relay.devices(of: "bob", key: b.apiKey).map(\.token) == [bobToken])
        }
    }
}
