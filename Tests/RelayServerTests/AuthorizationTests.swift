import Foundation
import RelayTestSupport
import Testing

/// What a user credential may do, each refusal a 403 with its own code (or, for another user's device, the
/// 404 of an unknown one) that changes nothing, and the same call allowed with the app's API key.
@Suite struct AuthorizationTests {
    /// A call refused for the user and then allowed for the backend.
    struct Row: Sendable, CustomStringConvertible {
        var method: String
        var path: String
        var json: [String: String]?
        var code: String
        var backendStatus: Int
        var status = 403
        var description: String { "\(method) \(path) -> \(status) \(code)" }
    }

    static let rows: [Row] = [
        Row(method: "GET", path: "/v1/users/bob/devices", code: "forbidden_user", backendStatus: 200),
        Row(
            method: "POST",
            path: "/v1/devices",
            json: ["token": bobPhone, "userId": "bob"],
            code: "forbidden_user",
            backendStatus: 200
        ),
        Row(method: "PUT", path: "/v1/rooms/open-room/members/bob", code: "forbidden_user", backendStatus: 204),
        Row(method: "DELETE", path: "/v1/rooms/open-room/members/bob", code: "forbidden_user", backendStatus: 204),
        Row(method: "PUT", path: "/v1/rooms/staff-room/members/alice", code: "room_closed", backendStatus: 204),
        Row(method: "GET", path: "/v1/rooms/bobs-room/members", code: "not_a_member", backendStatus: 200),
        Row(method: "GET", path: "/v1/rooms/bobs-room", code: "not_a_member", backendStatus: 200),
        Row(method: "DELETE", path: "/v1/devices/\(bobPhone)", code: "not_found", backendStatus: 204, status: 404),
        Row(
            method: "PUT",
            path: "/v1/rooms/open-room",
            json: ["membership": "closed"],
            code: "backend_only",
            backendStatus: 200
        ),
        Row(method: "GET", path: "/v1/dead-tokens", code: "backend_only", backendStatus: 200),
        Row(
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            json: ["roomId": "open-room", "senderId": "bob", "text": "as bob", "messageId": "spoof"],
            code: "forbidden_sender",
            backendStatus: 202
        ),
        Row(
            method: "POST",
            path: "/v1/webhooks/did-send-message",
            json: ["roomId": "bobs-room", "senderId": "alice", "text": "not a member", "messageId": "outsider"],
            code: "not_a_member",
            backendStatus: 202
        ),
    ]

    static let alicePhone = String(repeating: "a1", count: 32)
    static let bobPhone = String(repeating: "b2", count: 32)

    /// Alice (in open-room and closed-room) and Bob (in open-room, bobs-room and staff-room), registered
    /// and added by the backend; closed-room and staff-room are closed.
    static func populate(_ relay: RelayHarness) async throws {
        try await relay.register(alicePhone, user: "alice", rooms: ["open-room"])
        try await relay.register(bobPhone, user: "bob", rooms: ["open-room", "bobs-room"])
        for room in ["closed-room", "staff-room"] {
            #expect(try await relay.call("PUT", "/v1/rooms/\(room)", json: ["membership": "closed"]).status == 200)
        }
        try await relay.join("closed-room", "alice")
        try await relay.join("staff-room", "bob")
    }

    @Test(arguments: rows) func aUserIsRefusedWhatTheBackendMayDo(row: Row) async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await Self.populate(relay)
            let before = try await relay.state()
            let refused = try await relay.call(row.method, row.path, json: row.json, user: "alice")
            #expect(refused.status == row.status, "\(refused.text)")
            #expect(refused.error?.code == row.code)
            #expect(try await relay.state() == before, "a refused call changed nothing")
            #expect(relay.mock.requests.isEmpty)

            let allowed = try await relay.call(row.method, row.path, json: row.json)
            #expect(allowed.status == row.backendStatus, "\(allowed.text)")
        }
    }

    @Test func aUserDoesWhatConcernsItself() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await Self.populate(relay)
            // Its own devices, userId omitted or its own.
            let mine = try await relay.call("POST", "/v1/devices", json: ["token": Self.alicePhone], user: "alice")
            #expect(mine.status == 200 && mine.text.contains(#""userId":"alice""#))
            let tablet = String(repeating: "a3", count: 32)
            let named = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": tablet, "userId": "alice", "rooms": ["open-room"]],
                user: "alice"
            )
            #expect(named.status == 201)
            let list = try await relay.call("GET", "/v1/users/alice/devices", user: "alice")
            #expect(list.status == 200 && list.text.contains(tablet) && !list.text.contains(Self.bobPhone))
            #expect(try await relay.call("DELETE", "/v1/devices/\(tablet)", user: "alice").status == 204)
            // Rooms: joins and leaves an open room as itself, reads the rooms it is in.
            #expect(try await relay.call("PUT", "/v1/rooms/new-room/members/alice", user: "alice").status == 204)
            let muted = try await relay.call(
                "PUT",
                "/v1/rooms/new-room/members/alice",
                json: ["muted": true],
                user: "alice"
            )
            #expect(muted.status == 204)
            #expect(try await relay.call("GET", "/v1/rooms/closed-room/members", user: "alice").status == 200)
            #expect(try await relay.call("DELETE", "/v1/rooms/new-room/members/alice", user: "alice").status == 204)
            // A webhook as itself to a room it is in reaches Bob; the notification is its to read, not Bob's.
            let sent = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "open-room", "text": "hi", "messageId": "m-1"],
                user: "alice"
            )
            #expect(sent.status == 202, "\(sent.text)")
            let answer = try sent.decode(WebhookAnswer.self)
            #expect(answer.devices == 1)
            _ = try await relay.settled(answer.notificationId)
            #expect(relay.requests(to: Self.bobPhone).count == 1)
            let read = try await relay.call("GET", "/v1/notifications/\(answer.notificationId)", user: "alice")
            #expect(read.status == 200 && read.text.contains(#""senderId":"alice""#))
            let other = try await relay.call("GET", "/v1/notifications/\(answer.notificationId)", user: "bob")
            #expect(other.status == 404 && other.error?.code == "not_found")
            // Recipients must be members of the room.
            let outsider = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "closed-room", "text": "dm", "recipients": ["bob"]],
                user: "alice"
            )
            #expect(outsider.status == 403 && outsider.error?.code == "recipient_not_a_member")
            #expect(relay.requests(to: Self.bobPhone).count == 1)
            // A member mutes a closed room and leaves it.
            let closedMute = try await relay.call(
                "PUT",
                "/v1/rooms/closed-room/members/alice",
                json: ["muted": true],
                user: "alice"
            )
            #expect(closedMute.status == 204, "\(closedMute.text)")
            #expect(try await relay.call("DELETE", "/v1/rooms/closed-room/members/alice", user: "alice").status == 204)
            let rejoin = try await relay.call("PUT", "/v1/rooms/closed-room/members/alice", user: "alice")
            #expect(rejoin.status == 403 && rejoin.error?.code == "room_closed")
        }
    }

    @Test func aTokenRegisteredByAnotherUserMovesToTheCaller() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await Self.populate(relay)
            struct Dates: Decodable, Equatable {
                var createdAt: String
                var updatedAt: String
            }
            struct Devices: Decodable { var devices: [Dates] }
            let bobs = try await relay.call("GET", "/v1/users/bob/devices").decode(Devices.self).devices
            let bobsCreatedAt = try #require(bobs.first?.createdAt)
            let moved = try await relay.call("POST", "/v1/devices", json: ["token": Self.bobPhone], user: "carol")
            // To carol it is a new registration: neither the status nor createdAt tell it was bob's.
            #expect(moved.status == 201 && moved.text.contains(#""userId":"carol""#), "\(moved.text)")
            let view = try moved.decode(Dates.self)
            #expect(view.createdAt != bobsCreatedAt && view.createdAt == view.updatedAt)
            // Her list shows it from the move on, as does registering it again (200: it is hers).
            let carols = try await relay.call("GET", "/v1/users/carol/devices", user: "carol").decode(Devices.self)
            #expect(carols.devices.map(\.createdAt) == [view.createdAt])
            let again = try await relay.call("POST", "/v1/devices", json: ["token": Self.bobPhone], user: "carol")
            #expect(again.status == 200)
            #expect(try again.decode(Dates.self).createdAt == view.createdAt)
            // The backend moves it back (200: the backend sees that the token was known); bob's device dates
            // from that move.
            let back = try await relay.call("POST", "/v1/devices", json: ["token": Self.bobPhone, "userId": "bob"])
            #expect(back.status == 200, "\(back.text)")
            let backView = try back.decode(Dates.self)
            #expect(backView.createdAt != bobsCreatedAt && backView.createdAt == backView.updatedAt)
            let movedAgain = try await relay.call("POST", "/v1/devices", json: ["token": Self.bobPhone], user: "carol")
            #expect(movedAgain.status == 201)
            #expect(try await relay.call("GET", "/v1/users/bob/devices", user: "bob").text == #"{"devices":[]}"#)
            #expect(try await relay.call("GET", "/v1/users/carol/devices", user: "carol").text.contains(Self.bobPhone))
        }
    }

    @Test func anotherUsersTokenOrNotificationIsAnsweredAsAnUnknownOne() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await Self.populate(relay)
            let sent = try await relay.webhook(["roomId": "open-room", "senderId": "bob", "text": "mine"])
            let unknownId = UUID().uuidString.lowercased()
            for (path, unknownPath) in [
                ("/v1/devices/\(Self.bobPhone)", "/v1/devices/\(String(repeating: "d5", count: 32))"),
                (
                    "/v1/devices/\(Self.bobPhone)?platform=ios",
                    "/v1/devices/\(String(repeating: "d5", count: 32))?platform=ios"
                ),
            ] {
                let others = try await relay.call("DELETE", path, user: "alice")
                let unknown = try await relay.call("DELETE", unknownPath, user: "alice")
                #expect(others.status == 404 && others.body == unknown.body, "\(others.text) / \(unknown.text)")
            }
            let others = try await relay.call("GET", "/v1/notifications/\(sent.notificationId)", user: "alice")
            let unknown = try await relay.call("GET", "/v1/notifications/\(unknownId)", user: "alice")
            #expect(others.status == 404 && others.body == unknown.body, "\(others.text) / \(unknown.text)")
            // Nothing changed: Bob still has his phone, and he reads his notification.
            #expect(try await relay.devices(of: "bob").map(\.token) == [Self.bobPhone])
            let own = try await relay.call("GET", "/v1/notifications/\(sent.notificationId)", user: "bob")
            #expect(own.status == 200)
        }
    }

    /// A sender sees how many of its notification's deliveries stand where, not its recipients' devices: not
    /// their tokens, their number per user, their platforms nor their fates one by one.
    @Test func aUserSeesNoDeviceOfItsNotificationsRecipients() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await Self.populate(relay)
            let sent = try await relay.webhook(["roomId": "open-room", "senderId": "bob", "text": "hi alice"])
            let path = "/v1/notifications/\(sent.notificationId)"
            let alicesSuffix = String(Self.alicePhone.suffix(8))
            let own = try await relay.call("GET", path, user: "bob")
            #expect(own.status == 200 && own.text.contains(#""deliveries":[]"#), "\(own.text)")
            let counts = try own.decode(NotificationJSON.self).counts
            #expect(counts.pending + counts.sent == sent.devices && sent.devices == 1)
            #expect(!own.text.contains("tokenSuffix") && !own.text.contains(alicesSuffix), "\(own.text)")
            #expect(!own.text.contains("pushId") && !own.text.contains("apnsId"), "\(own.text)")
            // The backend's view is unchanged.
            let backend = try await relay.call("GET", path)
            #expect(backend.text.contains(#""tokenSuffix":"\#(alicesSuffix)""#), "\(backend.text)")
        }
    }

    @Test func aNotificationIsFoundByItsMessageIdByItsSenderAndTheBackend() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await Self.populate(relay)
            let sent = try await relay.webhook([
                "roomId": "open-room", "senderId": "bob", "text": "mine", "messageId": "B1D0-Msg",
            ])
            // Settled first, so both reads below show the same delivery states.
            _ = try await relay.settled(sent.notificationId)
            let own = try await relay.call("GET", "/v1/notifications?messageId=B1D0-Msg", user: "bob")
            #expect(own.status == 200 && own.text.contains(sent.notificationId), "\(own.text)")
            let byId = try await relay.call("GET", "/v1/notifications/\(sent.notificationId)", user: "bob")
            #expect(own.body == byId.body)
            #expect(try await relay.call("GET", "/v1/notifications?messageId=B1D0-Msg").status == 200)
            // Another user, a message id in another case, an unknown one: the same 404.
            let others = try await relay.call("GET", "/v1/notifications?messageId=B1D0-Msg", user: "alice")
            let otherCase = try await relay.call("GET", "/v1/notifications?messageId=b1d0-msg", user: "bob")
            let unknown = try await relay.call("GET", "/v1/notifications?messageId=nothing", user: "alice")
            #expect(others.status == 404 && others.body == unknown.body && otherCase.body == unknown.body)
            let missing = try await relay.call("GET", "/v1/notifications", user: "bob")
            #expect(missing.status == 400 && missing.error?.code == "invalid_query")
            #expect(missing.error?.message.hasPrefix("messageId is required") == true)
        }
    }

    @Test func aSenderDeviceTokenOfAnotherUserIsIgnored() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await Self.populate(relay)
            var answers: [WebhookAnswer] = []
            for (index, named) in [Self.bobPhone, String(repeating: "d5", count: 32)].enumerated() {
                let sent = try await relay.call(
                    "POST",
                    "/v1/webhooks/did-send-message",
                    json: ["roomId": "open-room", "text": "hi", "messageId": "m-\(index)", "senderDeviceToken": named],
                    user: "alice"
                )
                #expect(sent.status == 202, "\(sent.text)")
                answers.append(try sent.decode(WebhookAnswer.self))
            }
            #expect(answers.map(\.devices) == [1, 1], "Bob's phone counts as for an unknown token")
            for answer in answers { _ = try await relay.settled(answer.notificationId) }
            #expect(relay.requests(to: Self.bobPhone).count == 2, "Bob is notified of both")
            // The backend's senderDeviceToken still leaves that device out, whoever it is registered to.
            let backend = try await relay.webhook([
                "roomId": "open-room", "senderId": "alice", "text": "hi", "messageId": "m-backend",
                "senderDeviceToken": Self.bobPhone,
            ])
            #expect(backend.devices == 0)
        }
    }

    @Test func aUserInAClosedRoomCannotRegisterIntoIt() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await Self.populate(relay)
            let phone = String(repeating: "c4", count: 32)
            let refused = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": phone, "rooms": ["closed-room"]],
                user: "carol"
            )
            #expect(refused.status == 403 && refused.error?.code == "room_closed")
            #expect(try await relay.devices(of: "carol").isEmpty)
        }
    }
}

/// Found by trying the relay as an attacker would.
@Suite struct AuthorizationEdgeTests {
    @Test func idsThatOnlyLookAlikeAreDifferentUsers() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            let precomposed = "jos\u{E9}", decomposed = "jose\u{301}"
            #expect(precomposed == decomposed, "Swift's == takes them as equal; the relay must not")
            let phone = randomToken()
            try await relay.register(phone, user: precomposed, rooms: ["room"])
            let sent = try await relay.webhook(["roomId": "room", "senderId": precomposed, "text": "mine"])
            let read = try await relay.call("GET", "/v1/notifications/\(sent.notificationId)", user: decomposed)
            #expect(read.status == 404 && read.error?.code == "not_found")
            let delete = try await relay.call("DELETE", "/v1/devices/\(phone)", user: decomposed)
            #expect(delete.status == 404 && delete.error?.code == "not_found")
            let list = try await relay.call("GET", "/v1/users/\(precomposed)/devices", user: decomposed)
            #expect(list.status == 403 && list.error?.code == "forbidden_user")
            // A path names its user: nothing there can be omitted.
            let signedIn = "must be the signed-in user ('\(decomposed)')"
            #expect(list.error?.message.hasSuffix(signedIn) == true, "\(list.text)")
            #expect(try await relay.devices(of: precomposed).map(\.token) == [phone])
        }
    }

    @Test func anAPIKeyIsNeverTakenAsAUserCredential() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            let keyAsUser = try await relay.call(
                "GET",
                "/v1/users/alice/devices",
                headers: ["X-PushRelay-App": relay.app.id]
            )
            #expect(keyAsUser.status == 401 && keyAsUser.error?.code == "invalid_credential")
            let twice = try await relay.rawExchange(
                "GET /v1/users/alice/devices HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(try UserTokenIssuer.shared.token(for: "alice"))\r\n"
                    + "X-PushRelay-App: \(relay.app.id)\r\nX-PushRelay-App: other\r\nConnection: close\r\n\r\n"
            )
            #expect(twice.hasPrefix("HTTP/1.1 400") && twice.contains("conflicting_headers"), "\(twice)")
        }
    }

    /// A user credential is checked before any body byte is read: a refused one is answered while its
    /// announced body is still unsent (and without `100 Continue`), so a stranger's junk credential holds no
    /// body; a good one's body is read once it passed.
    @Test func aUserCredentialIsCheckedBeforeTheBodyIsRead() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            let refused = try await relay.rawExchange(
                "POST /v1/devices HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer not.a.jwt\r\n"
                    + "X-PushRelay-App: \(relay.app.id)\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n"
                    + "Expect: 100-continue\r\n\r\n"
            )
            #expect(refused.hasPrefix("HTTP/1.1 401") && refused.contains("invalid_credential"), "\(refused)")
            #expect(!refused.contains("100 Continue"))
            let body = #"{"token":"\#(randomToken())"}"#
            let accepted = try await relay.rawExchange(
                "POST /v1/devices HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(try UserTokenIssuer.shared.token(for: "alice"))\r\n"
                    + "X-PushRelay-App: \(relay.app.id)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
            #expect(accepted.hasPrefix("HTTP/1.1 201"), "\(accepted)")
            #expect(try await relay.devices(of: "alice").count == 1)
        }
    }

    /// White space after the app id or the credential (a proxy that pads header values) is not part of
    /// them (RFC 9110 §5.5).
    @Test func theAppHeaderIsReadWithoutTheWhiteSpaceAroundIt() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await relay.register(randomToken(), user: "alice")
            let token = try UserTokenIssuer.shared.token(for: "alice")
            for (padded, credential) in [
                ("\(relay.app.id) ", "Bearer \(token)"), ("\(relay.app.id)\t \t", "bearer  \(token) \t"),
            ] {
                let answer = try await relay.rawExchange(
                    "GET /v1/users/alice/devices HTTP/1.1\r\nHost: t\r\nAuthorization: \(credential)\r\n"
                        + "X-PushRelay-App: \(padded)\r\nConnection: close\r\n\r\n"
                )
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            }
        }
    }

    @Test func aUserLearnsNothingOfAnotherRoomFromAMessageIdConflict() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { relay in
            try await relay.join("open-room", "alice")
            _ = try await relay.webhook(["roomId": "secret", "senderId": "carol", "text": "x", "messageId": "m-1"])
            let probe = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "open-room", "text": "probe", "messageId": "m-1"],
                user: "alice"
            )
            #expect(probe.status == 409 && probe.error?.code == "message_id_conflict")
            #expect(probe.error?.message.contains("secret") == false && probe.error?.message.contains("carol") == false)
        }
    }
}
