import Foundation
import RelayCore
import Testing

/// The existing endpoints for an app with a stream (`apps[].ditto`): membership comes from Ditto, and the
/// delegate webhooks store and send nothing.
@Suite struct DittoAppTests {
    /// The first app gets a stream that only takes events over HTTP.
    static func withStream(_ configuration: inout Configuration) {
        configuration.apps[0].ditto = Configuration.Ditto(ingestSecretSHA256: [String(repeating: "a", count: 64)])
    }

    @Test func memberAndRoomWritesAnswer409ManagedByDitto() async throws {
        try await withRelayAndMock(configure: Self.withStream) { relay in
            let writes: [(String, String, Any?)] = [
                ("PUT", "/v1/rooms/general/members/alice", nil),
                // A body that sets no level is a join.
                ("PUT", "/v1/rooms/general/members/alice", [String: Any]()),
                ("DELETE", "/v1/rooms/general/members/alice", nil),
                ("PUT", "/v1/rooms/general", ["membership": "closed"]),
            ]
            for (method, path, json) in writes {
                let answer = try await relay.call(method, path, json: json)
                #expect(answer.status == 409, "\(method) \(path): \(answer.text)")
                #expect(answer.error?.code == "managed_by_ditto", "\(method) \(path)")
            }
            // Reads show the mirror, which holds no room yet.
            let members = try await relay.call("GET", "/v1/rooms/general/members")
            #expect(members.status == 200 && members.text.contains(#""members":[]"#), "\(members.text)")
            #expect(try await relay.call("GET", "/v1/rooms/general").status == 404)
        }
    }

    @Test func aRegistrationWithRoomsIsAcceptedAndMakesNoMembership() async throws {
        try await withRelayAndMock(configure: Self.withStream) { relay in
            let token = randomToken()
            let created = try await relay.register(token, user: "alice", rooms: ["general", "random"])
            #expect(created.status == 201)
            #expect(try await relay.devices(of: "alice").count == 1)
            for room in ["general", "random"] {
                let members = try await relay.call("GET", "/v1/rooms/\(room)/members")
                #expect(members.status == 200 && members.text.contains(#""members":[]"#), "\(members.text)")
            }
            // A room id is still read as one.
            let bad = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": token, "userId": "alice", "rooms": [""]]
            )
            #expect(bad.status == 400, "\(bad.text)")
        }
    }

    @Test func theDelegateWebhooksAnswer202SourceDittoAndSendNothing() async throws {
        try await withRelayAndMock(configure: Self.withStream) { relay in
            try await relay.register(randomToken(), user: "alice")
            try await relay.register(randomToken(), user: "bob")
            let bodies: [(Bool, [String: Any])] = [
                (false, ["roomId": "general", "senderId": "alice", "text": "Hi", "messageId": "M-1"]),
                (true, ["roomId": "general", "senderId": "alice", "messageId": "M-2", "recipients": ["bob"]]),
            ]
            for (image, body) in bodies {
                let path = image ? "/v1/webhooks/did-send-image-message" : "/v1/webhooks/did-send-message"
                let answer = try await relay.call("POST", path, json: body)
                #expect(answer.status == 202, "\(path): \(answer.text)")
                #expect(answer.text == #"{"devices":0,"source":"ditto"}"#, "\(path)")
                let found = try await relay.call("GET", "/v1/notifications?messageId=\(body["messageId"]!)")
                #expect(found.status == 404, "nothing stored: \(found.text)")
            }
            // They still authenticate and validate as today.
            let anonymous = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "general", "senderId": "alice", "text": "Hi"],
                authorize: false
            )
            #expect(anonymous.status == 401)
            let invalid = try await relay.call("POST", "/v1/webhooks/did-send-message", json: ["senderId": "alice"])
            #expect(invalid.status == 400 && invalid.error?.code == "missing_field", "\(invalid.text)")
            #expect(relay.mock.requests.isEmpty)
        }
    }

    @Test func aUserOfAStreamAppIsAnsweredAsTheBackendIs() async throws {
        try await withRelayAndMock(configure: {
            Self.withStream(&$0)
            RelayHarness.withUserAuth(&$0)
            $0.apps[0].roomMembership = .closed
        }) { relay in
            let join = try await relay.call("PUT", "/v1/rooms/general/members/alice", user: "alice")
            #expect(join.status == 409 && join.error?.code == "managed_by_ditto", "\(join.text)")
            let leave = try await relay.call("DELETE", "/v1/rooms/general/members/alice", user: "alice")
            #expect(leave.status == 409 && leave.error?.code == "managed_by_ditto", "\(leave.text)")
            // A closed room in `rooms` is no refusal: the list is ignored.
            let registered = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": randomToken(), "rooms": ["general"]],
                user: "alice"
            )
            #expect(registered.status == 201, "\(registered.text)")
            // Not a member in the relay's store, and still the stream's answer, not 403 not_a_member.
            let sent = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "general", "text": "Hi"],
                user: "alice"
            )
            #expect(sent.status == 202 && sent.text == #"{"devices":0,"source":"ditto"}"#, "\(sent.text)")
            let asBob = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "general", "senderId": "bob", "text": "Hi"],
                user: "alice"
            )
            #expect(asBob.status == 403 && asBob.error?.code == "forbidden_sender", "\(asBob.text)")
        }
    }

    /// A user's webhooks to a Ditto app store nothing, but still take from its webhook bucket: past the burst
    /// they are refused like any other app's, so a user cannot call them without a bound.
    @Test func aUsersWebhooksTakeTheWebhookLimit() async throws {
        try await withRelayAndMock(configure: {
            Self.withStream(&$0)
            RelayHarness.withUserAuth(&$0)
            $0.apps[0].limits = Configuration.Limits(webhooksPerMinute: 1, webhookBurst: 2)
        }) { relay in
            func send() async throws -> APIResponse {
                try await relay.call(
                    "POST",
                    "/v1/webhooks/did-send-message",
                    json: ["roomId": "general", "text": "Hi"],
                    user: "alice"
                )
            }
            for _ in 0..<2 { #expect(try await send().status == 202) }
            let refused = try await send()
            #expect(refused.status == 429 && refused.error?.code == "rate_limited", "\(refused.text)")
            #expect(refused.header("Retry-After") != nil)
        }
    }

    /// A user of a Ditto app sets a level for any room, member or not, but for at most `roomsPerUser` rooms:
    /// its calls cannot add level rows without a bound. The backend's are not counted.
    @Test func aUsersRoomLevelsEndAtItsRoomLimit() async throws {
        try await withRelayAndMock(configure: {
            Self.withStream(&$0)
            RelayHarness.withUserAuth(&$0)
            $0.apps[0].limits = Configuration.Limits(roomsPerUser: 2)
        }) { relay in
            func mute(_ room: String, user: String?) async throws -> APIResponse {
                let path = "/v1/rooms/\(room)/members/bob"
                guard let user else { return try await relay.call("PUT", path, json: ["notify": "none"]) }
                return try await relay.call("PUT", path, json: ["notify": "none"], user: user)
            }
            for room in ["r1", "r2", "r1"] { #expect(try await mute(room, user: "bob").status == 204) }
            let refused = try await mute("r3", user: "bob")
            #expect(refused.status == 409 && refused.error?.code == "limit_reached", "\(refused.text)")
            #expect(refused.text.contains("has 2 rooms with a level of their own"), "\(refused.text)")
            #expect(refused.header("Retry-After") == nil)
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="room_levels"} 1"#), "\(metrics)")
            // The backend's write is not refused, and its level is one of bob's.
            #expect(try await mute("r3", user: nil).status == 204)
            // Dropping a level is never refused, and makes room.
            for room in ["r1", "r2"] {
                let drop = try await relay.call(
                    "PUT",
                    "/v1/rooms/\(room)/members/bob",
                    json: ["notify": "default"],
                    user: "bob"
                )
                #expect(drop.status == 204, "\(drop.text)")
            }
            #expect(try await mute("r4", user: "bob").status == 204)
        }
    }

    @Test func anAppWithoutAStreamIsUnchanged() async throws {
        try await withRelayAndMock { relay in
            let bobToken = randomToken()
            try await relay.register(randomToken(), user: "alice", rooms: ["general"])
            try await relay.register(bobToken, user: "bob", rooms: ["general"])
            let members = try await relay.call("GET", "/v1/rooms/general/members")
            #expect(members.text.contains("alice") && members.text.contains("bob"))
            let answer = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "general", "senderId": "alice", "text": "Hi"]
            )
            #expect(answer.status == 202 && !answer.text.contains("source"), "\(answer.text)")
            let accepted = try answer.decode(WebhookAnswer.self)
            #expect(accepted.devices == 1)
            let view = try await relay.settled(accepted.notificationId)
            #expect(view.counts.pending == 0)
            #expect(relay.requests(to: bobToken).count == 1)
            try await relay.join("general", "carol")
        }
    }
}
