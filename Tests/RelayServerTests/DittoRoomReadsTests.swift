import Foundation
import RelayCore
import RelayCrypto
import Testing

/// `GET /v1/rooms/{roomId}` and `GET /v1/rooms/{roomId}/members` for an app with a stream: what the Ditto
/// mirror holds, paged, with the same authorization as for the relay's own rooms.
@Suite struct DittoRoomReadsTests {
    static let secret = "ingest-secret-rooms-0123456789"

    /// The first app gets a stream fed over HTTP with ``secret``, and user credentials.
    static func configure(_ configuration: inout Configuration) {
        configuration.apps[0].ditto = Configuration.Ditto(
            ingestSecretSHA256: [Digest.sha256(Data(secret.utf8)).hexString]
        )
        RelayHarness.withUserAuth(&configuration)
    }

    static func upsert(_ txn: Int, _ collection: String, _ document: [String: Any]) -> [String: Any] {
        [
            "txnId": txn, "type": "documentChanged", "collection": collection,
            "change": ["method": "upsert", "oldValue": NSNull(), "newValue": document],
        ]
    }

    /// A public room "general" with subscribers u-1…u-5 (alice's subscription null), and a DM room of
    /// alice and bob.
    static var events: [[String: Any]] {
        [
            upsert(1, "rooms", ["_id": "general", "name": "General"]),
            upsert(1, "dm_rooms", ["_id": "dm-1", "name": "Alice & Bob", "participants": ["bob", "alice"]]),
            upsert(1, "users", ["_id": "alice", "name": "Alice", "subscriptions": ["general": NSNull()]]),
            upsert(1, "users", ["_id": "bob", "name": "Bob", "subscriptions": [String: Any]()]),
        ]
            + (1...5).map {
                upsert(1, "users", ["_id": "u-\($0)", "subscriptions": ["general": "2020-01-01T00:00:00Z"]])
            }
    }

    struct Room: Decodable, Equatable {
        var roomId: String
        var membership: String
        var name: String?
        var direct: Bool?
        var source: String?
    }

    struct Members: Decodable, Equatable {
        var members: [String]
        var nextOffset: Int?
        var source: String?
    }

    @Test func theRoomsAndTheirMembersAreTheMirrorsPagedAndOnlyForMembers() async throws {
        try await withRelayAndMock(configure: Self.configure) { relay in
            let fed = try await relay.call("POST", "/v1/ditto/events", json: Self.events, key: Self.secret)
            #expect(fed.status == 200, "\(fed.text)")

            let general = try await relay.call("GET", "/v1/rooms/general")
            #expect(general.status == 200, "\(general.text)")
            #expect(
                try general.decode(Room.self)
                    == Room(roomId: "general", membership: "closed", name: "General", direct: false, source: "ditto")
            )
            let dm = try await relay.call("GET", "/v1/rooms/dm-1", user: "alice")
            #expect(dm.status == 200, "\(dm.text)")
            #expect(
                try dm.decode(Room.self)
                    == Room(roomId: "dm-1", membership: "closed", name: "Alice & Bob", direct: true, source: "ditto")
            )
            let unknown = try await relay.call("GET", "/v1/rooms/nowhere")
            #expect(unknown.status == 404 && unknown.error?.code == "not_found", "\(unknown.text)")

            // Pages of a public room's subscribers, by user id.
            var page = try await relay.call("GET", "/v1/rooms/general/members?limit=2")
            #expect(try page.decode(Members.self) == Members(members: ["u-1", "u-2"], nextOffset: 2, source: "ditto"))
            page = try await relay.call("GET", "/v1/rooms/general/members?offset=4&limit=2", user: "u-3")
            #expect(try page.decode(Members.self) == Members(members: ["u-5"], nextOffset: nil, source: "ditto"))
            page = try await relay.call("GET", "/v1/rooms/dm-1/members", user: "bob")
            #expect(
                try page.decode(Members.self) == Members(members: ["alice", "bob"], nextOffset: nil, source: "ditto")
            )
            let bad = try await relay.call("GET", "/v1/rooms/general/members?limit=0")
            #expect(bad.status == 400, "\(bad.text)")

            // A user of another room, or whose subscription is null, reads neither the room nor its members,
            // and learns no more about a room that does not exist.
            for (path, user) in [
                ("/v1/rooms/general", "alice"), ("/v1/rooms/general/members", "bob"), ("/v1/rooms/dm-1", "u-1"),
                ("/v1/rooms/dm-1/members", "u-1"), ("/v1/rooms/nowhere", "alice"),
            ] {
                let refused = try await relay.call("GET", path, user: user)
                #expect(refused.status == 403 && refused.error?.code == "not_a_member", "\(path) as \(user)")
            }

            // A later user document moves the member: bob subscribes to general.
            let moved = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: [Self.upsert(2, "users", ["_id": "bob", "subscriptions": ["general": NSNull()]])]
                    + [Self.upsert(3, "users", ["_id": "bob", "subscriptions": ["general": "2020-01-01T00:00:00Z"]])],
                key: Self.secret
            )
            #expect(moved.status == 200, "\(moved.text)")
            #expect(try await relay.call("GET", "/v1/rooms/general", user: "bob").status == 200)
        }
    }

    @Test func anAppWithoutAStreamAnswersAsBefore() async throws {
        try await withRelayAndMock { relay in
            try await relay.register(randomToken(), user: "alice", rooms: ["general"])
            let room = try await relay.call("GET", "/v1/rooms/general")
            #expect(
                room.status == 200 && !room.text.contains("source") && !room.text.contains("direct"),
                "\(room.text)"
            )
            let members = try await relay.call("GET", "/v1/rooms/general/members")
            #expect(members.text == #"{"members":["alice"]}"#, "\(members.text)")
        }
    }
}
