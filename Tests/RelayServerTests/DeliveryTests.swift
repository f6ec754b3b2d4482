import APNsMock
import Foundation
import RelayCrypto
import RelayTestSupport
import Testing

/// End to end: webhook in, HTTP/2 requests out to the mock APNs, outcomes recorded in SQLite.
@Suite struct DeliveryTests {
    @Test func aMessageReachesEveryRoomDeviceExceptTheSendersWithAppleHeadersAndPayload() async throws {
        try await withRelayAndMock { relay in
            let alice = randomToken(), bob1 = randomToken(), bob2 = randomToken(), carol = randomToken()
            let room = "room-main"
            try await relay.register(alice, user: "alice", rooms: [room])
            let registered = try await relay.register(bob1.uppercased(), user: "bob", rooms: [room])
            #expect(registered.status == 201)
            #expect(try registered.decode(DeviceJSON.self).token == bob1)
            try await relay.register(bob2, user: "bob")
            try await relay.join(room, "bob")
            try await relay.register(carol, user: "carol", rooms: [room])

            let before = Int(Date().timeIntervalSince1970)
            let text = "Hello 👋 see https://example.com/a/b"
            let answer = try await relay.webhook([
                "roomId": room, "senderId": "carol", "text": text, "messageId": "msg-1",
                "roomName": "General", "senderName": "Carol",
            ])
            let after = Int(Date().timeIntervalSince1970)
            #expect(answer.devices == 3)

            _ = try await relay.mock.waitForRequests(count: 3, timeout: .seconds(20))
            let view = try await relay.settled(answer.notificationId)
            #expect(view.counts.sent == 3 && view.counts.failed == 0 && view.counts.retired == 0)
            #expect(view.deliveries.count == 3)

            let requests = relay.mock.requests
            #expect(requests.compactMap(\.deviceToken).sorted() == [alice, bob1, bob2].sorted())
            #expect(relay.requests(to: carol).isEmpty)
            for request in requests {
                let token = try #require(request.deviceToken)
                #expect(request.status == 200)
                #expect(request.method == "POST")
                #expect(request.header("apns-push-type") == "alert")
                #expect(request.header("apns-priority") == "10")
                #expect(request.header("apns-topic") == relay.app.topic)
                #expect(request.header("apns-collapse-id") == "dittochat-msg-msg-1")
                let expiration = try #require(request.header("apns-expiration").flatMap { Int($0) })
                #expect(
                    (before + RelayTestBed.ttlSeconds - 1)...(after + RelayTestBed.ttlSeconds + 1) ~= expiration
                )
                let delivery = try #require(view.delivery(for: token))
                #expect(delivery.status == "sent" && delivery.attempts == 1)
                #expect(request.header("apns-id") == delivery.apnsId)
                #expect(request.apnsId == delivery.apnsId)
                #expect(delivery.pushId == delivery.apnsId)

                let authorization = try #require(request.header("authorization"))
                #expect(authorization.hasPrefix("bearer "))
                let jwt = try JSONWebToken(parsing: String(authorization.dropFirst("bearer ".count)))
                #expect(jwt.verify(with: relay.providerKey))
                #expect(jwt.header.kid == RelayTestBed.keyId && jwt.claims.iss == RelayTestBed.teamId)

                let raw = String(decoding: request.body, as: UTF8.self)
                #expect(raw.contains("https://example.com/a/b") && !raw.contains("\\/") && raw.contains("👋"))
                let payload = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                let aps = try #require(payload["aps"] as? [String: Any])
                let alert = try #require(aps["alert"] as? [String: Any])
                #expect(alert["title"] as? String == "General")
                #expect(alert["body"] as? String == "Carol: \(text)")
                #expect(aps["sound"] as? String == "default")
                #expect(aps["thread-id"] as? String == room)
                #expect(aps["mutable-content"] == nil)
                #expect(payload["dittoChatRoomId"] as? String == room)
                #expect(payload["dittoChatMessageId"] as? String == "msg-1")
            }
            // One apns-id per delivery.
            #expect(Set(requests.compactMap { $0.header("apns-id") }).count == 3)
        }
    }

    /// A notification's deliveries come in pages: `limit` from `offset`, and `nextOffset` while more follow;
    /// the pages together list every device once. Out-of-range values are 400 `invalid_query`.
    @Test func aNotificationsDeliveriesComeInPages() async throws {
        try await withRelayAndMock { relay in
            let tokens = (0..<5).map { _ in randomToken() }
            for (index, token) in tokens.enumerated() {
                try await relay.register(token, user: "user-\(index)", rooms: ["paged"])
            }
            let answer = try await relay.webhook(["roomId": "paged", "senderId": "nobody", "text": "hi"])
            #expect(answer.devices == 5)
            let whole = try await relay.settled(answer.notificationId)
            #expect(whole.deliveries.count == 5 && whole.nextOffset == nil)
            var pages: [NotificationJSON] = []
            var query = "?limit=2"
            while true {
                let page = try await relay.notification(answer.notificationId, query: query)
                pages.append(page)
                guard let next = page.nextOffset else { break }
                query = "?limit=2&offset=\(next)"
            }
            #expect(pages.map(\.deliveries.count) == [2, 2, 1])
            #expect(pages.flatMap(\.deliveries).map(\.apnsId) == whole.deliveries.map(\.apnsId))
            let beyond = try await relay.notification(answer.notificationId, query: "?offset=9")
            #expect(beyond.deliveries.isEmpty && beyond.nextOffset == nil && beyond.counts.sent == 5)
            for query in ["?limit=0", "?limit=1001", "?offset=-1", "?limit=two", "?offset=+1"] {
                let response = try await relay.call("GET", "/v1/notifications/\(answer.notificationId)\(query)")
                #expect(response.status == 400 && response.text.contains("invalid_query"), "\(query): \(response.text)")
            }
        }
    }

    @Test func senderDeviceTokenAndExplicitRecipientsChooseTheDevices() async throws {
        try await withRelayAndMock { relay in
            let room = "room-pick"
            let u1 = randomToken(), u2a = randomToken(), u2b = randomToken(), u3 = randomToken()
            let sender = randomToken()
            try await relay.register(u1, user: "u1", rooms: [room])
            try await relay.register(u2a, user: "u2", rooms: [room])
            try await relay.register(u2b, user: "u2")
            try await relay.register(u3, user: "u3")
            try await relay.register(sender, user: "s", rooms: [room])

            // Room members minus the sender's devices and the device that sent (given in a mangled form).
            let first = try await relay.webhook([
                "roomId": room, "senderId": "s", "text": "one", "messageId": "pick-1",
                "senderDeviceToken": u2a.uppercased(),
            ])
            #expect(first.devices == 2)
            // Explicit recipients replace the room; duplicates and the sender count once / not at all.
            let second = try await relay.webhook([
                "roomId": room, "senderId": "s", "text": "two", "messageId": "pick-2",
                "recipients": ["u1", "u1", "u3", "s", "nobody"],
            ])
            #expect(second.devices == 2)
            let unknown = try await relay.webhook([
                "roomId": "no-such-room", "senderId": "s", "text": "three", "messageId": "pick-3",
            ])
            #expect(unknown.devices == 0)

            for id in [first.notificationId, second.notificationId] {
                let view = try await relay.settled(id)
                #expect(view.counts.sent == 2 && view.deliveries.count == 2)
            }
            let view = try await relay.notification(unknown.notificationId)
            #expect(view.deliveries.isEmpty && view.counts.pending == 0)

            #expect(relay.requests(to: u1).count == 2)
            #expect(relay.requests(to: u2b).count == 1)
            #expect(relay.requests(to: u3).count == 1)
            #expect(relay.requests(to: u2a).isEmpty)
            #expect(relay.requests(to: sender).isEmpty)
            #expect(relay.mock.requests.count == 4)
        }
    }

    @Test func theSameWebhookAgainAnswers200WithTheFirstIdAndSendsNothing() async throws {
        try await withRelayAndMock { relay in
            let room = "room-dup"
            let tokens = (0..<3).map { _ in randomToken() }
            for (index, token) in tokens.enumerated() {
                try await relay.register(token, user: "u\(index)", rooms: [room])
            }
            let body: [String: Any] = ["roomId": room, "senderId": "s", "text": "once", "messageId": "dup-1"]
            let first = try await relay.webhook(body)
            #expect(first.devices == 3)
            _ = try await relay.settled(first.notificationId)

            let again = try await relay.webhook(body, expectStatus: 200)
            #expect(again.notificationId == first.notificationId)
            let changedText = try await relay.webhook(
                ["roomId": room, "senderId": "s", "text": "edited", "messageId": "dup-1"],
                expectStatus: 200
            )
            #expect(changedText.notificationId == first.notificationId)
            // The same id for another room is not the same webhook: refused, so the mistake is seen.
            let otherRoom = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "room-other", "senderId": "s", "text": "other", "messageId": "dup-1"]
            )
            #expect(otherRoom.status == 409 && otherRoom.text.contains("message_id_conflict"))

            // Barrier: a new message to one device; once it settled, anything the repeats queued would have
            // been claimed before it.
            let barrierToken = randomToken()
            try await relay.register(barrierToken, user: "late", rooms: ["room-barrier"])
            let barrier = try await relay.webhook([
                "roomId": "room-barrier", "senderId": "s", "text": "barrier", "messageId": "dup-2",
            ])
            _ = try await relay.settled(barrier.notificationId)
            // The same message id as an image is another message: refused, nothing sent.
            let image = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-image-message",
                json: ["roomId": room, "senderId": "s", "messageId": "dup-1"]
            )
            #expect(image.status == 409 && image.text.contains("message_id_conflict"))

            let view = try await relay.notification(first.notificationId)
            #expect(view.deliveries.count == 3 && view.counts.sent == 3)
            for token in tokens { #expect(relay.requests(to: token).count == 1) }
            #expect(relay.mock.requests.count == 4)
        }
    }

    @Test func aGracefulRestartMidDeliveryDeliversEveryDeviceExactlyOnce() async throws {
        // Two sends at a time of a second each: the stop comes while most of the twelve wait, even when this
        // test's task runs late on a loaded machine.
        try await withRelayAndMock(
            script: MockScript(devices: [.init(token: "*", delayMs: 1000)]),
            configure: { configuration in
                configuration.delivery.concurrency = 2
                configuration.delivery.batchSize = 2
            }
        ) { relay in
            let room = "room-restart"
            let tokens = (0..<12).map { _ in randomToken() }
            for (index, token) in tokens.enumerated() {
                try await relay.register(token, user: "u\(index)", rooms: [room])
            }
            let answer = try await relay.webhook([
                "roomId": room, "senderId": "s", "text": "across a restart", "messageId": "restart-1",
            ])
            #expect(answer.devices == 12)
            _ = try await relay.mock.waitForRequests(count: 1, timeout: .seconds(20))
            await relay.stopRelay()
            let sentBeforeRestart = relay.mock.answeredCount
            try #require(sentBeforeRestart < tokens.count, "everything was sent before the restart")

            relay.mock.script = MockScript()
            try await relay.startRelay()
            let view = try await relay.settled(answer.notificationId)
            #expect(view.counts.sent == tokens.count)
            for token in tokens { #expect(relay.requests(to: token).count == 1) }
            #expect(relay.mock.requests.count == tokens.count)
        }
    }

    @Test func retriesPendingAtShutdownAreSentByTheNextRelayOnTheSameDatabase() async throws {
        try await withRelayAndMock(
            script: MockScript(devices: [.init(token: "*", status: 503, reason: "ServiceUnavailable")]),
            configure: { configuration in
                configuration.delivery.retry = .init(
                    maxAttempts: 1000,
                    baseDelayMilliseconds: 100,
                    maxDelayMilliseconds: 200
                )
            }
        ) { relay in
            let room = "room-down"
            let tokens = (0..<4).map { _ in randomToken() }
            for (index, token) in tokens.enumerated() {
                try await relay.register(token, user: "u\(index)", rooms: [room])
            }
            let answer = try await relay.webhook([
                "roomId": room, "senderId": "s", "text": "while APNs is down", "messageId": "down-1",
            ])
            _ = try await relay.mock.waitForRequests(count: tokens.count, timeout: .seconds(20))
            let deadline = ContinuousClock.now + .seconds(20)
            while try await relay.notification(answer.notificationId).deliveries.contains(where: { $0.attempts == 0 }) {
                try #require(ContinuousClock.now < deadline, "first attempts not recorded")
                try await Task.sleep(for: .milliseconds(25))
            }
            await relay.stopRelay()

            relay.mock.script = MockScript()
            try await relay.startRelay()
            let view = try await relay.settled(answer.notificationId)
            #expect(view.counts.sent == tokens.count)
            for token in tokens {
                #expect(relay.requests(to: token).filter { $0.status == 200 }.count == 1)
            }
            #expect(view.deliveries.allSatisfy { $0.attempts >= 2 })
        }
    }

    @Test func tokenFateFollowsAPNsAnswers() async throws {
        let gone = randomToken(), flaky = randomToken(), dead = randomToken(), bad = randomToken()
        let fine = randomToken()
        let script = MockScript(devices: [
            .init(token: gone, status: 410, reason: "Unregistered", count: 1),
            .init(token: flaky, status: 503, reason: "ServiceUnavailable", count: 2),
            .init(token: dead, status: 503, reason: "ServiceUnavailable"),
            .init(token: bad, status: 400, reason: "BadDeviceToken", count: 1),
        ])
        try await withRelayAndMock(script: script) { relay in
            let room = "room-fate"
            try await relay.register(gone, user: "gone", rooms: [room])
            try await relay.register(flaky, user: "flaky", rooms: [room])
            try await relay.register(dead, user: "dead", rooms: [room])
            try await relay.register(bad, user: "bad", rooms: [room], environment: "production")
            try await relay.register(fine, user: "fine", rooms: [room])

            let first = try await relay.webhook(["roomId": room, "senderId": "s", "text": "1", "messageId": "fate-1"])
            #expect(first.devices == 5)
            let view = try await relay.settled(first.notificationId)
            let goneDelivery = try #require(view.delivery(for: gone))
            #expect(goneDelivery.status == "retired" && goneDelivery.lastStatus == 410)
            let flakyDelivery = try #require(view.delivery(for: flaky))
            #expect(flakyDelivery.status == "sent" && flakyDelivery.attempts == 3)
            let deadDelivery = try #require(view.delivery(for: dead))
            #expect(deadDelivery.status == "failed" && deadDelivery.attempts == 3 && deadDelivery.lastStatus == 503)
            let badDelivery = try #require(view.delivery(for: bad))
            #expect(badDelivery.status == "retired" && badDelivery.lastStatus == 400)
            #expect(view.delivery(for: fine)?.status == "sent")
            #expect(relay.requests(to: flaky).map(\.status) == [503, 503, 200])
            #expect(relay.requests(to: dead).count == 3)

            #expect(try await relay.devices(of: "gone").map(\.state) == ["retired"])
            #expect(try await relay.devices(of: "bad").map(\.state) == ["retired"])
            #expect(try await relay.devices(of: "dead").map(\.state) == ["live"])

            // Retired tokens get nothing more.
            let second = try await relay.webhook(["roomId": room, "senderId": "s", "text": "2", "messageId": "fate-2"])
            #expect(second.devices == 3)
            _ = try await relay.settled(second.notificationId)
            #expect(relay.requests(to: gone).count == 1)
            #expect(relay.requests(to: bad).count == 1)

            // Registering again revives.
            let revived = try await relay.register(gone, user: "gone")
            #expect(revived.status == 200)
            #expect(try revived.decode(DeviceJSON.self).state == "live")
            let third = try await relay.webhook(["roomId": room, "senderId": "s", "text": "3", "messageId": "fate-3"])
            #expect(third.devices == 4)
            let thirdView = try await relay.settled(third.notificationId)
            #expect(thirdView.delivery(for: gone)?.status == "sent")
            #expect(relay.requests(to: gone).map(\.status) == [410, 200])
        }
    }

    @Test func badDeviceTokenFromTheOldEnvironmentDoesNotRetireATokenRegisteredAgainForTheOther() async throws {
        let token = randomToken()
        let script = MockScript(devices: [
            .init(token: token, status: 400, reason: "BadDeviceToken", delayMs: 1500, count: 1)
        ])
        try await withRelayAndMock(script: script) { relay in
            try await relay.register(token, user: "mover", rooms: ["room-env"], environment: "sandbox")
            // The readiness probe's connections came before (the relay's start probes each endpoint once).
            let probed = relay.mock.acceptedConnections
            let answer = try await relay.webhook(["roomId": "room-env", "senderId": "s", "text": "x"])
            // The sandbox client connected: the delivery was claimed for sandbox and its answer is delayed.
            let deadline = ContinuousClock.now + .seconds(20)
            while relay.mock.acceptedConnections == probed {
                try #require(ContinuousClock.now < deadline, "the relay never connected")
                try await Task.sleep(for: .milliseconds(10))
            }
            let moved = try await relay.register(token, user: "mover", environment: "production")
            #expect(try moved.decode(DeviceJSON.self).environment == "production")
            let view = try await relay.settled(answer.notificationId)
            #expect(relay.requests(to: token).map(\.status) == [400])
            #expect(view.delivery(for: token)?.lastStatus == 400)
            let device = try #require(try await relay.devices(of: "mover").first)
            #expect(device.state == "live" && device.environment == "production")
        }
    }
}
