import Foundation
import PushRelayClient
import RelayCore
import RelayTestSupport
import Synchronization
import Testing

/// The client against the live relay (through the test's front): what the relay stored and what the mock
/// APNs received.
@Suite("PushRelayClient against the live relay")
struct ClientLiveTests {
    static let messagePath = "/v1/webhooks/did-send-message"

    /// 32 random bytes, as APNs hands a token to the app.
    static func randomToken() -> Data { Data((0..<32).map { _ in UInt8.random(in: 0...255) }) }

    /// The hex the chat SDK's `registerDeviceToken(_:)` makes of `token`, computed its way.
    static func sdkHex(_ token: Data) -> String { token.map { String(format: "%02.2hhx", $0) }.joined() }

    @Test(
        "registerDevice stores the token as the SDK's hex, in the app's environment, with its rooms",
        arguments: [
            PushRelayClient.Environment.sandbox, .production,
        ]
    )
    func registerDevice(environment: PushRelayClient.Environment) async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice", environment: environment)
            let token = Self.randomToken()
            try await alice.registerDevice(token: token, rooms: ["general", "random"])

            let devices = try await live.devices(of: "alice")
            #expect(devices.map(\.token) == [Self.sdkHex(token)])
            #expect(devices.map(\.environment) == [environment.rawValue])
            #expect(try await live.members(of: "general") == ["alice"])
            #expect(try await live.members(of: "random") == ["alice"])
            #expect(await alice.deviceToken == Self.sdkHex(token))

            let seen = live.front.seen("/v1/devices")
            #expect(seen.count == 1)
            #expect(seen.first?.authorization == "Bearer \(TestCredential.valid(for: "alice", in: live))")
            #expect(seen.first?.app == LiveRelay.appId)
            #expect(seen.first?.idempotencyKey == nil)
        }
    }

    @Test("joinRoom and leaveRoom change the user's memberships, ids percent-encoded as one segment")
    func joinAndLeave() async throws {
        try await withLiveRelay { live in
            let bob = live.client(userId: "bob")
            let room = "team/α β?x=1"
            try await bob.joinRoom(room)
            try await bob.joinRoom("general")
            #expect(try await live.members(of: room) == ["bob"])
            #expect(try await live.members(of: "general") == ["bob"])

            try await bob.leaveRoom(room)
            #expect(try await live.members(of: room) == [])
            #expect(try await live.members(of: "general") == ["bob"])
        }
    }

    @Test("Notification levels for a room and by default decide which messages reach the user")
    func levels() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice")
            let bob = live.client(userId: "bob")
            try await alice.registerDevice(token: Self.randomToken(), rooms: ["general"])
            try await bob.registerDevice(token: Self.randomToken(), rooms: ["general"])
            let send = { (text: String) in
                try await alice.didSendMessage(roomId: "general", roomName: nil, senderName: nil, text: text).devices
            }
            #expect(try await bob.defaultNotificationLevel() == .all)
            #expect(try await bob.notificationLevel(forRoom: "general") == .init(own: nil, effective: .all))
            // `.none` is the level, not Optional's nil: the parameter is no optional.
            try await bob.setNotificationLevel(.none, forRoom: "general")
            #expect(
                try await bob.notificationLevel(forRoom: "general")
                    == .init(own: NotificationLevel.none, effective: .none)
            )
            #expect(try await send("one") == 0)
            try await bob.setDefaultNotificationLevel(.mentions)
            #expect(try await bob.defaultNotificationLevel() == .mentions)
            try await bob.resetNotificationLevel(forRoom: "general")
            #expect(try await bob.notificationLevel(forRoom: "general") == .init(own: nil, effective: .mentions))
            #expect(try await send("two") == 0, "the default, mentions, admits no plain message")
            try await bob.setNotificationLevel(.all, forRoom: "general")
            #expect(try await send("three") == 1)
        }
    }

    @Test("markRead moves the user's read position forward and unread counts what is after it")
    func markReadAndUnread() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice")
            let bob = live.client(userId: "bob")
            try await alice.registerDevice(token: Self.randomToken(), rooms: ["general", "team/α β"])
            try await bob.registerDevice(token: Self.randomToken(), rooms: ["general", "team/α β"])
            #expect(try await bob.unread() == UnreadCounts(total: 0, rooms: [:]))
            let start = Date()
            for text in ["one", "two"] {
                _ = try await alice.didSendMessage(roomId: "general", roomName: nil, senderName: nil, text: text)
            }
            _ = try await alice.didSendMessage(roomId: "team/α β", roomName: nil, senderName: nil, text: "three")
            #expect(try await bob.unread() == UnreadCounts(total: 3, rooms: ["general": 2, "team/α β": 1]))

            // Read up to now in one room; an earlier date then moves nothing.
            let position = try await bob.markRead(roomId: "general")
            #expect(position >= start.addingTimeInterval(-1) && position <= Date().addingTimeInterval(1))
            #expect(try await bob.markRead(roomId: "general", at: start.addingTimeInterval(-3600)) == position)
            #expect(try await bob.unread() == UnreadCounts(total: 1, rooms: ["team/α β": 1]))
            try await bob.markRead(roomId: "team/α β", userId: "bob")
            #expect(try await bob.unread() == UnreadCounts(total: 0, rooms: [:]))
            // A user's credential reads and marks only its own; a room it is not in has no position.
            let refused = { (code: String) in
                { (error: any Error) in (error as? PushRelayError)?.code == PushRelayError.Code(rawValue: code) }
            }
            await #expect(throws: Never.self) { try await alice.unread() }
            await #expect(performing: { try await alice.unread(userId: "bob") }, throws: refused("forbidden_user"))
            await #expect(
                performing: { try await alice.markRead(roomId: "general", userId: "bob") },
                throws: refused("forbidden_user")
            )
            await #expect(
                performing: { try await bob.markRead(roomId: "elsewhere") },
                throws: refused("member_not_found")
            )
        }
    }

    @Test("For an app with a Ditto stream, didSendMessage reports the source ditto, no notification id, no devices")
    func dittoReceipt() async throws {
        try await withLiveRelay(ditto: Configuration.Ditto(ingestSecretSHA256: [String(repeating: "a", count: 64)])) {
            live in
            let alice = live.client(userId: "alice")
            let bob = live.client(userId: "bob")
            try await alice.registerDevice(token: Self.randomToken(), rooms: ["general"])
            try await bob.registerDevice(token: Self.randomToken(), rooms: ["general"])

            let text = try await alice.didSendMessage(
                roomId: "general",
                roomName: "General",
                senderName: "Alice",
                text: "Hi Bob"
            )
            #expect(text == MessageReceipt(notificationId: nil, devices: 0, source: .ditto))
            let image = try await alice.didSendImageMessage(roomId: "general", roomName: "General", senderName: "Alice")
            #expect(image == MessageReceipt(notificationId: nil, devices: 0, source: .ditto))
        }
    }

    @Test("didSendMessage notifies the room's other members with room name, sender name and a fresh key")
    func didSendMessage() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice")
            let bob = live.client(userId: "bob")
            let aliceToken = Self.randomToken()
            let bobToken = Self.randomToken()
            try await alice.registerDevice(token: aliceToken, rooms: ["general"])
            try await bob.registerDevice(token: bobToken, rooms: ["general"])

            let first = try await alice.didSendMessage(
                roomId: "general",
                roomName: "General",
                senderName: "Alice",
                text: "Hi Bob 👋"
            )
            let second = try await alice.didSendMessage(
                roomId: "general",
                roomName: "General",
                senderName: "Alice",
                text: "Still there?"
            )
            #expect(first.devices == 1)
            #expect(first.source == .relay)
            #expect(first.notificationId != nil)
            #expect(second.notificationId != first.notificationId)

            try await waitUntil("two pushes to Bob") { try live.pushes(to: Self.sdkHex(bobToken)).count == 2 }
            let push = try #require(try live.pushes(to: Self.sdkHex(bobToken)).first)
            #expect(push["dittoChatRoomId"] as? String == "general")
            let alert = (push["aps"] as? [String: Any])?["alert"] as? [String: Any]
            #expect(alert?["title"] as? String == "General")
            #expect(alert?["body"] as? String == "Alice: Hi Bob 👋")
            #expect(try live.pushes(to: Self.sdkHex(aliceToken)).isEmpty)

            let keys = live.front.seen(Self.messagePath).map(\.idempotencyKey)
            #expect(keys.count == 2)
            #expect(keys.allSatisfy { $0.flatMap(UUID.init(uuidString:)) != nil && $0 == $0?.lowercased() })
            #expect(Set(keys).count == 2)
        }
    }

    @Test("didSendImageMessage sends the caption and the image URL for the service extension")
    func didSendImageMessage() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice")
            let bob = live.client(userId: "bob")
            let bobToken = Self.randomToken()
            try await bob.registerDevice(token: bobToken, rooms: ["photos"])
            try await alice.joinRoom("photos")

            let receipt = try await alice.didSendImageMessage(
                roomId: "photos",
                roomName: "Photos",
                senderName: "Alice",
                caption: "Sunset",
                imageURL: URL(string: "https://images.example.com/sunset.jpg")
            )
            #expect(receipt.devices == 1)
            try await waitUntil("a push to Bob") { try live.pushes(to: Self.sdkHex(bobToken)).count == 1 }
            let push = try #require(try live.pushes(to: Self.sdkHex(bobToken)).first)
            let aps = push["aps"] as? [String: Any]
            #expect(push["imageUrl"] as? String == "https://images.example.com/sunset.jpg")
            #expect(aps?["mutable-content"] as? Int == 1)
            #expect((aps?["alert"] as? [String: Any])?["body"] as? String == "Alice: Sunset")
        }
    }

    @Test("unregisterDevice removes the device and forgets the token; again it sends nothing")
    func unregisterDevice() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice")
            try await alice.registerDevice(token: Self.randomToken())
            try await alice.unregisterDevice()
            #expect(try await live.devices(of: "alice").isEmpty)
            #expect(await alice.deviceToken == nil)

            try await alice.unregisterDevice()
            #expect(live.front.seen.filter { $0.method == "DELETE" }.count == 1)
        }
    }

    @Test("A sign-out made while a registration waits to retry removes the device that registration makes")
    func unregisterWaitsForTheRegistration() async throws {
        try await withLiveRelay { live in
            let (gate, open) = AsyncStream<Void>.makeStream()
            let sleeps = SleepLog(beforeWaking: {
                for await _ in gate { break }
            })
            let alice = live.client(userId: "alice", sleeps: sleeps)
            live.front.answer("/v1/devices", status: 503, retryAfter: "0")
            let registering = Task { try await alice.registerDevice(token: Self.randomToken()) }
            try await waitUntil("the registration waits to retry") { sleeps.seconds.count == 1 }
            let signingOut = Task { try await alice.unregisterDevice() }
            // Time for the sign-out to start: it waits for the registration, sending nothing.
            try await Task.sleep(nanoseconds: 200_000_000)
            #expect(live.front.seen.filter { $0.method == "DELETE" }.isEmpty)
            open.yield()
            open.finish()
            try await registering.value
            try await signingOut.value
            #expect(try await live.devices(of: "alice").isEmpty)
            #expect(await alice.deviceToken == nil)
            #expect(live.front.seen.filter { $0.method == "DELETE" }.count == 1)
        }
    }

    @Test("A refused registration keeps the registered token, which a sign-out then removes")
    func aRefusedRegistrationKeepsTheToken() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice")
            let first = Self.randomToken()
            try await alice.registerDevice(token: first)
            live.front.answer("/v1/devices", status: 409)
            await #expect(throws: PushRelayError.self) { try await alice.registerDevice(token: Self.randomToken()) }
            #expect(await alice.deviceToken == PushRelayClient.hexString(deviceToken: first))
            try await alice.unregisterDevice()
            #expect(try await live.devices(of: "alice").isEmpty)
        }
    }

    @Test("unregisterDevice(token:) removes a device this client never registered (after a relaunch)")
    func unregisterAGivenToken() async throws {
        try await withLiveRelay { live in
            let token = Self.randomToken()
            try await live.client(userId: "alice").registerDevice(token: token)
            let relaunched = live.client(userId: "alice")
            try await relaunched.unregisterDevice()
            #expect(try await live.devices(of: "alice").count == 1, "no token known: nothing sent")
            try await relaunched.unregisterDevice(token: token)
            #expect(try await live.devices(of: "alice").isEmpty)
        }
    }

    @Test("Only the relay's own 404 counts as a removed device: another's is the call's error")
    func anotherFourOhFourIsAnError() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice")
            let token = Self.randomToken()
            try await alice.registerDevice(token: token)
            let path = "/v1/devices/" + PushRelayClient.hexString(deviceToken: token)
            live.front.answer(path, status: 404)
            await #expect {
                try await alice.unregisterDevice()
            } throws: { ($0 as? PushRelayError)?.status == 404 }
            #expect(await alice.deviceToken != nil)
            try await alice.unregisterDevice()
            #expect(try await live.devices(of: "alice").isEmpty)
            // The relay's own 404 (the device is gone) ends a removal well.
            try await alice.unregisterDevice(token: token)
        }
    }

    @Test("A message's details: its id is the SDK's banner identifier, mentions reach a member at mentions")
    func messageDetails() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice")
            let bob = live.client(userId: "bob")
            let carol = live.client(userId: "carol")
            let bobToken = Self.randomToken()
            try await alice.registerDevice(token: Self.randomToken(), rooms: ["general"])
            try await bob.registerDevice(token: bobToken, rooms: ["general"])
            try await carol.registerDevice(token: Self.randomToken(), rooms: ["general"])
            try await bob.setNotificationLevel(.mentions, forRoom: "general")
            let send = { (text: String, details: MessageDetails) in
                try await alice.didSendMessage(
                    roomId: "general",
                    roomName: nil,
                    senderName: nil,
                    text: text,
                    details: details
                )
            }
            #expect(try await send("plain", MessageDetails()).devices == 1, "carol only")
            let id = UUID().uuidString
            let mentioned = try await send("@bob lunch?", MessageDetails(messageId: id, mentions: ["bob"]))
            #expect(mentioned.devices == 2)
            let bobHex = Self.sdkHex(bobToken)
            try await waitUntil("the push to Bob") { try live.pushes(to: bobHex).count == 1 }
            let push = try #require(live.mock.requests.first { $0.deviceToken == bobHex })
            #expect(push.header("apns-collapse-id") == "dittochat-msg-" + id)
            let again = try await send("@bob lunch?", MessageDetails(messageId: id, mentions: ["bob"]))
            #expect(again.notificationId == mentioned.notificationId, "the same message notifies once")
            let toBob = try await send("@bob just you", MessageDetails(mentions: ["bob"], recipients: ["bob"]))
            #expect(toBob.devices == 1)
        }
    }

    @Test("A new token replaces the old one's device; a registration that sends nothing keeps the token")
    func aNewTokenReplacesTheOld() async throws {
        try await withLiveRelay { live in
            let failing = Mutex(false)
            let alice = live.client(userId: "alice") { _ in
                if failing.withLock({ $0 }) { throw URLError(.userAuthenticationRequired) }
                return TestCredential.valid(for: "alice", in: live)
            }
            let old = Self.randomToken(), new = Self.randomToken()
            try await alice.registerDevice(token: old)
            try await alice.registerDevice(token: new)
            let hex = PushRelayClient.hexString(deviceToken: new)
            #expect(try await live.devices(of: "alice").map(\.token) == [hex])
            failing.withLock { $0 = true }
            await #expect {
                try await alice.registerDevice(token: Self.randomToken())
            } throws: { ($0 as? PushRelayError)?.code == .credentialUnavailable }
            #expect(await alice.deviceToken == hex)
            failing.withLock { $0 = false }
            try await alice.unregisterDevice()
            #expect(try await live.devices(of: "alice").isEmpty)
        }
    }

    @Test("A registration without an answer keeps both tokens for the sign-out")
    func aRegistrationWithoutAnAnswerIsRemovedWithTheOld() async throws {
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice", retry: .init(maxAttempts: 1, requestTimeout: 10))
            let old = Self.randomToken()
            try await alice.registerDevice(token: old)
            // The relay registers the new token; the client sees a 503 after it (a proxy's timeout).
            live.front.answerAfterForwarding("/v1/devices", status: 503)
            await #expect(throws: PushRelayError.self) { try await alice.registerDevice(token: Self.randomToken()) }
            #expect(try await live.devices(of: "alice").count == 2)
            try await alice.unregisterDevice()
            #expect(try await live.devices(of: "alice").isEmpty)
        }
    }
}
