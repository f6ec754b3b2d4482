import Foundation
import RelayCore
import Testing

/// Notification levels through the API: `notify` (and the deprecated `muted`) per member, the user's default
/// in its settings, `mentions` in webhooks, and the level-only member writes of an app with a stream.
@Suite struct NotifyLevelAPITests {
    /// How many devices a message of alice's to `team` reaches, sent as alice (a user) with `extra` fields.
    static func reach(_ relay: RelayHarness, _ id: String, _ extra: [String: Any] = [:]) async throws -> Int {
        var body: [String: Any] = ["roomId": "team", "text": "hi", "messageId": id]
        body.merge(extra) { $1 }
        let answer = try await relay.call("POST", "/v1/webhooks/did-send-message", json: body, user: "alice")
        #expect(answer.status == 202, "\(answer.text)")
        return try answer.decode(WebhookAnswer.self).devices
    }

    @Test func membersAndUsersSetTheirOwnLevelsAndWebhooksGoByThem() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            for user in ["alice", "bob", "carol", "dave", "erin"] {
                try await relay.register(randomToken(), user: user, rooms: ["team"])
            }
            let member = { (user: String, body: [String: Any]) in
                try await relay.call("PUT", "/v1/rooms/team/members/\(user)", json: body, user: user)
            }
            #expect(try await member("carol", ["notify": "mentions"]).status == 204)
            #expect(try await member("dave", ["muted": true]).status == 204)
            let settings = try await relay.call(
                "PUT",
                "/v1/users/bob/settings",
                json: ["notify": "mentions"],
                user: "bob"
            )
            #expect(settings.status == 200 && settings.text.contains(#""notify":"mentions""#), "\(settings.text)")
            let read = try await relay.call("GET", "/v1/users/bob/settings", user: "bob")
            #expect(read.status == 200 && read.text.contains(#""notify":"mentions""#), "\(read.text)")
            let fresh = try await relay.call("GET", "/v1/users/erin/settings")
            #expect(fresh.status == 200 && fresh.text.contains(#""notify":"all""#), "\(fresh.text)")
            // A user reads and sets only its own.
            #expect(try await relay.call("GET", "/v1/users/carol/settings", user: "bob").status == 403)
            let other = try await relay.call("PUT", "/v1/users/carol/settings", json: ["notify": "none"], user: "bob")
            #expect(other.status == 403 && other.error?.code == "forbidden_user")
            #expect(try await member("erin", ["notify": "loud"]).error?.code == "invalid_field")
            #expect(try await member("erin", ["notify": "all", "muted": false]).error?.code == "invalid_field")
            #expect(
                try await relay.call("PUT", "/v1/users/erin/settings", json: [String: Any](), user: "erin").status
                    == 400
            )

            // bob (mentions by default), carol (mentions), dave (muted), erin (all).
            #expect(try await Self.reach(relay, "m1") == 1)
            #expect(try await Self.reach(relay, "m2", ["mentions": ["bob", "carol", "dave"]]) == 3)
            // A user's recipients cannot pass a level; the backend's can.
            #expect(try await Self.reach(relay, "m3", ["recipients": ["dave"], "mentions": ["dave"]]) == 0)
            let backend = try await relay.webhook([
                "roomId": "team", "senderId": "alice", "text": "urgent", "recipients": ["dave"], "messageId": "b1",
            ])
            #expect(backend.devices == 1)

            // `muted: false` and `notify: default` return a member to the user's default (all for dave and
            // carol); a member at `none` is still a member.
            let members = try await relay.call("GET", "/v1/rooms/team/members")
            #expect(members.text.contains(#""dave""#), "\(members.text)")
            #expect(try await member("dave", ["muted": false]).status == 204)
            #expect(try await member("carol", ["notify": "default"]).status == 204)
            #expect(try await Self.reach(relay, "m4") == 3)
            let longList = Array(repeating: "bob", count: 1001)
            let tooMany = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "team", "text": "hi", "mentions": longList],
                user: "alice"
            )
            #expect(tooMany.status == 400 && tooMany.error?.code == "invalid_field", "\(tooMany.text)")
        }
    }

    /// A member reads its level for a room back as it set it, with the level that decides: its own, else its
    /// default, else `all`; only its own, and only in a room it is in.
    @Test func aMemberReadsItsLevelForARoom() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            for user in ["bob", "carol"] { try await relay.register(randomToken(), user: user, rooms: ["team"]) }
            let read = { (user: String) in
                try await relay.call("GET", "/v1/rooms/team/members/\(user)", user: user).json()
            }
            let fresh = try await read("bob")
            #expect(fresh["notify"] as? String == "default" && fresh["effective"] as? String == "all", "\(fresh)")
            #expect(try await relay.call("PUT", "/v1/users/bob/settings", json: ["notify": "mentions"]).status == 200)
            #expect(try await read("bob")["effective"] as? String == "mentions")
            let mute = try await relay.call("PUT", "/v1/rooms/team/members/bob", json: ["notify": "none"], user: "bob")
            #expect(mute.status == 204)
            let muted = try await read("bob")
            #expect(muted["notify"] as? String == "none" && muted["effective"] as? String == "none", "\(muted)")
            #expect(muted["roomId"] as? String == "team" && muted["userId"] as? String == "bob")
            let byBackend = try await relay.call("GET", "/v1/rooms/team/members/bob").json()
            #expect(byBackend["notify"] as? String == "none")
            let other = try await relay.call("GET", "/v1/rooms/team/members/bob", user: "carol")
            #expect(other.status == 403 && other.error?.code == "forbidden_user")
            let elsewhere = try await relay.call("GET", "/v1/rooms/other/members/bob", user: "bob")
            #expect(elsewhere.status == 404 && elsewhere.error?.code == "member_not_found", "\(elsewhere.text)")
        }
    }

    /// A member of a closed room sets its own level there; a user who is not a member is refused.
    @Test func aMemberSetsItsLevelInAClosedRoom() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await relay.register(randomToken(), user: "bob", rooms: ["team"])
            #expect(try await relay.call("PUT", "/v1/rooms/team", json: ["membership": "closed"]).status == 200)
            let own = try await relay.call("PUT", "/v1/rooms/team/members/bob", json: ["notify": "none"], user: "bob")
            #expect(own.status == 204, "\(own.text)")
            let stranger = try await relay.call(
                "PUT",
                "/v1/rooms/team/members/carol",
                json: ["notify": "none"],
                user: "carol"
            )
            #expect(stranger.status == 403 && stranger.error?.code == "room_closed")
            let sent = try await relay.webhook(["roomId": "team", "senderId": "alice", "text": "hi"])
            #expect(sent.devices == 0)
        }
    }

    /// An app with a stream: Ditto holds the membership, so a member write that only sets a level is taken
    /// (for a user the mirror has subscribed) and any other is 409; the level holds for stream messages.
    @Test func aStreamAppTakesLevelOnlyMemberWrites() async throws {
        try await withRelayAndMock(configure: DittoEventsTests.withDitto()) { relay in
            let phone = randomToken()
            try await relay.register(phone, user: "bob")
            for body in [nil, [String: Any]()] as [Any?] {
                let join = try await relay.call("PUT", "/v1/rooms/general/members/bob", json: body)
                #expect(join.status == 409 && join.error?.code == "managed_by_ditto", "\(join.text)")
            }
            let quiet = try await relay.call("PUT", "/v1/rooms/general/members/bob", json: ["muted": true])
            #expect(quiet.status == 204, "\(quiet.text)")
            // The level is the relay's whatever Ditto's members: read back before the mirror has bob.
            let level = try await relay.call("GET", "/v1/rooms/general/members/bob").json()
            #expect(level["notify"] as? String == "none" && level["effective"] as? String == "none", "\(level)")
            let settings = try await relay.call("PUT", "/v1/users/bob/settings", json: ["notify": "mentions"])
            #expect(settings.status == 200, "\(settings.text)")

            var txn = 0
            func post(_ id: String, mentions: [String] = []) async throws -> Int {
                txn += 1
                let created = Timestamp.rfc3339(Date().addingTimeInterval(-5))
                let mentioned = mentions.map { ["userId": $0, "startIndex": 0, "endIndex": 1] as [String: Any] }
                let events: [[String: Any]] = [
                    [
                        "txnId": txn, "type": "documentChanged", "collection": "users",
                        "change": [
                            "method": "upsert", "oldValue": NSNull(),
                            "newValue": ["_id": "bob", "name": "Bob", "subscriptions": ["general": created]],
                        ],
                    ],
                    [
                        "txnId": txn, "type": "documentChanged", "collection": "messages",
                        "change": [
                            "method": "upsert", "oldValue": NSNull(),
                            "newValue": [
                                "_id": id, "roomId": "general", "userId": "alice", "text": "hi",
                                "createdOn": Timestamp.rfc3339(Date()), "mentions": mentioned,
                            ],
                        ],
                    ],
                ]
                let answer = try await relay.call(
                    "POST",
                    "/v1/ditto/events",
                    json: events,
                    key: DittoEventsTests.secret
                )
                #expect(answer.status == 200, "\(answer.text)")
                let view = try await relay.call("GET", "/v1/notifications?messageId=\(id)")
                return try view.decode(NotificationJSON.self).deliveries.count
            }
            #expect(try await post("s1", mentions: ["bob"]) == 0, "none for the room, mention or not")
            #expect(try await relay.call("PUT", "/v1/rooms/general/members/bob", json: ["muted": false]).status == 204)
            #expect(try await post("s2") == 0, "the default is mentions")
            #expect(try await post("s3", mentions: ["bob"]) == 1)
            let all = try await relay.call("PUT", "/v1/rooms/general/members/bob", json: ["notify": "all"])
            #expect(all.status == 204)
            #expect(try await post("s4") == 1)
        }
    }
}
