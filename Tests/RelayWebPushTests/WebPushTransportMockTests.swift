import Foundation
import RelayCore
import RelayWebPush
import Testing
import WebPushCore
import WebPushMock

/// The Web Push transport against the real mock push service over HTTP/2 (TLS and h2c) through libcurl,
/// in-process on port 0: what the mock decrypted and verified, and what each answer becomes.
@Suite struct WebPushTransportMockTests {
    @Test(arguments: [true, false])
    func aPushIsDeliveredEncryptedAndAuthorized(tls: Bool) async throws {
        let harness = try WebPushHarness.start(tls: tls)
        let subscription = try harness.subscription()
        let job = try WebPushHarness.job(to: subscription, expiration: Int(Date().timeIntervalSince1970) + 7200)
        let result = await harness.transport.send(job)
        await harness.stop()

        let record = try #require(harness.mock.requests.first)
        #expect(record.status == 201)
        #expect(record.endpointId == WebPushHarness.id(subscription))
        let location = try #require(record.location)
        #expect(result == .delivered(id: String(location.split(separator: "/").last!)))
        #expect(record.shape == "plain")
        #expect(
            record.payload
                == .object([
                    "title": .string("Team"), "body": .string("Alice: hello from the web"),
                    "dittoChatRoomId": .string("room-7"), "dittoChatMessageId": .string("m-1"),
                ])
        )
        // The app's TTL (3600) is shorter than what is left of the notification's two hours.
        #expect(record.ttl == 3600)
        #expect(record.urgency == "high")
        #expect(record.topic == Topic(messageId: "m-1").value)
        #expect(record.vapidAudience == harness.mock.baseURL)
        #expect(record.vapidSubject == WebPushHarness.subject)
        #expect(record.vapidKey == WebPushHarness.key.publicKeyBase64URL)
    }

    @Test func theDeclarativeShapeOpensTheRoomAndAShortExpirationShortensTheTTL() async throws {
        let harness = try WebPushHarness.start {
            $0.declarative = true
            $0.openURL = "https://chat.example/rooms/{roomId}?message={messageId}"
        }
        let subscription = try harness.subscription()
        let job = try WebPushHarness.job(
            to: subscription,
            messageId: nil,
            expiration: Int(Date().timeIntervalSince1970) + 600
        )
        let result = await harness.transport.send(job)
        await harness.stop()

        guard case .delivered = result else { throw Failure("not delivered: \(result)") }
        let record = try #require(harness.mock.requests.first)
        #expect(record.shape == "declarative")
        #expect(
            record.payload
                == .object([
                    "web_push": .number(8030),
                    "notification": .object([
                        "title": .string("Team"), "body": .string("Alice: hello from the web"),
                        "navigate": .string("https://chat.example/rooms/room-7?message="),
                        "data": .object(["dittoChatRoomId": .string("room-7")]),
                    ]),
                ])
        )
        #expect((590...600).contains(record.ttl ?? -1))
        #expect(record.topic == nil)
    }

    /// Each scripted status, and the result the outbox gets for it.
    @Test func eachAnswerBecomesItsResult() async throws {
        let statuses: [(Int, Int?)] = [
            (404, nil), (410, nil), (413, nil), (400, nil), (401, nil), (403, nil), (429, 30), (500, nil),
            (503, 86_400),
        ]
        let harness = try WebPushHarness.start()
        var subscriptions: [Int: WebPushSubscription] = [:]
        for (status, _) in statuses { subscriptions[status] = try harness.subscription() }
        harness.mock.script = MockWebPushScript(
            endpoints: statuses.map { status, retryAfter in
                .init(id: WebPushHarness.id(subscriptions[status]!), status: status, retryAfter: retryAfter)
            }
        )
        var results: [Int: PushResult] = [:]
        for (status, _) in statuses {
            results[status] = await harness.transport.send(try WebPushHarness.job(to: subscriptions[status]!))
        }
        await harness.stop()

        #expect(harness.mock.answeredCount == statuses.count)
        for status in [404, 410] {
            guard case .retire(status, _, _) = results[status] else {
                Issue.record("\(status): \(String(describing: results[status]))")
                continue
            }
        }
        #expect(results[413] == .fail(.rejected, status: 413, reason: "PayloadTooLarge"))
        #expect(results[400] == .fail(.rejected, status: 400, reason: "BadRequest"))
        #expect(results[401] == .fail(.rejected, status: 401, reason: "Unauthorized"))
        #expect(results[403] == .fail(.rejected, status: 403, reason: "Forbidden"))
        #expect(results[429] == .retry(after: .seconds(30), status: 429, reason: "TooManyRequests"))
        guard case .retry(let delay, 500, "HTTP 500") = results[500] else {
            throw Failure("500: \(String(describing: results[500]))")
        }
        #expect(delay <= .seconds(1))
        // A day of Retry-After is capped at the client's maxRetryAfter (10 minutes).
        #expect(results[503] == .retry(after: .seconds(600), status: 503, reason: "HTTP 503"))
    }

    @Test func refusalsOfDistinctSubscriptionsPauseTheOriginWithoutContactingIt() async throws {
        let harness = try WebPushHarness.start()
        let refusing = try (0..<3).map { _ in try harness.subscription() }
        harness.mock.script = MockWebPushScript(
            endpoints: refusing.map { .init(id: WebPushHarness.id($0), status: 403) }
        )
        for subscription in refusing {
            let result = await harness.transport.send(try WebPushHarness.job(to: subscription))
            #expect(result == .fail(.rejected, status: 403, reason: "Forbidden"))
        }
        let next = await harness.transport.send(try WebPushHarness.job(to: try harness.subscription()))
        await harness.stop()

        // Held (no attempt spent) until the pause's next probe.
        guard case .held(let after, "OriginPaused") = next else { throw Failure("not paused: \(next)") }
        #expect(after > .seconds(20) && after <= .seconds(30))
        #expect(harness.mock.answeredCount == 3)
    }

    @Test func anAnswerLongerThanTheCapIsAbortedAndFails() async throws {
        let harness = try WebPushHarness.start { $0.maxResponseBytes = 8 }
        let accepted = try harness.subscription(), gone = try harness.subscription()
        harness.mock.script = MockWebPushScript(endpoints: [.init(id: WebPushHarness.id(gone), status: 410)])
        let delivered = await harness.transport.send(try WebPushHarness.job(to: accepted))
        // The 410's JSON error body is longer than 8 bytes: the transfer is aborted, no answer is read.
        let aborted = await harness.transport.send(try WebPushHarness.job(to: gone))
        await harness.stop()

        guard case .delivered = delivered else { throw Failure("201 without a body: \(delivered)") }
        // Not retried: a service that answers at length is not asked again for this delivery.
        #expect(aborted == .fail(.rejected, status: nil, reason: "responseTooLarge"))
        #expect(harness.mock.answeredCount == 2)
    }

    /// A send beyond a proven origin's bound waits for its slot (the app's mock counts as proven, its bound is
    /// maxInFlightPerOrigin): it goes once the send holding the slot ends, instead of being turned away.
    @Test func aSendBeyondAProvenOriginsBoundWaitsForItsSlot() async throws {
        let harness = try WebPushHarness.start {
            $0.maxInFlightPerOrigin = 1
            $0.slotWait = .seconds(60)
        }
        let silent = try harness.subscription(), other = try harness.subscription()
        harness.mock.script = MockWebPushScript(endpoints: [.init(id: WebPushHarness.id(silent), neverAnswer: true)])
        let first = Task { await harness.transport.send(try WebPushHarness.job(to: silent)) }
        // The first send holds the origin's one slot from before it connects until it ends.
        let clock = ContinuousClock(), deadline = clock.now + .seconds(60)
        while harness.mock.acceptedConnections == 0, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let second = Task { await harness.transport.send(try WebPushHarness.job(to: other)) }
        first.cancel()
        let cancelled = try await first.value
        let waited = try await second.value
        await harness.stop()

        guard case .retry(_, nil, "transport") = cancelled else { throw Failure("first: \(cancelled)") }
        guard case .delivered = waited else { throw Failure("the waiting send: \(waited)") }
        #expect(harness.mock.answeredCount == 1)
    }

    @Test func aHostNameThatResolvesToLoopbackIsRefusedAtConnect() async throws {
        let harness = try WebPushHarness.start()
        let subscription = try harness.subscription()
        // The same server by a name: not the app's mock origin, so its loopback address is refused.
        let byName = WebPushHarness.moved(subscription, to: "https://localhost:\(harness.mock.port)")
        let result = await harness.transport.send(try WebPushHarness.job(to: byName))
        await harness.stop()

        #expect(result == .fail(.rejected, status: nil, reason: "NonPublicAddress"))
        #expect(harness.mock.acceptedConnections == 0)
        #expect(harness.mock.answeredCount == 0)
    }

    @Test(arguments: ["http://localhost:PORT", "https://127.0.0.2:PORT", "https://[::1]:PORT"])
    func plainHTTPAndAddressesAreOnlyForTheMock(base: String) async throws {
        let harness = try WebPushHarness.start(tls: false)
        let subscription = try harness.subscription()
        let moved = WebPushHarness.moved(
            subscription,
            to: base.replacingOccurrences(of: "PORT", with: "\(harness.mock.port)")
        )
        let result = await harness.transport.send(try WebPushHarness.job(to: moved))
        await harness.stop()

        #expect(result == .fail(.rejected, status: nil, reason: "EndpointNotAllowed"))
        #expect(harness.mock.acceptedConnections == 0)
    }

    @Test func badgeWakeAndRemovalJobsAreNotSentToBrowsers() async throws {
        let harness = try WebPushHarness.start()
        let subscription = try harness.subscription()
        let wake = await harness.transport.send(try WebPushHarness.job(to: subscription, mode: .wake))
        let removal = await harness.transport.send(
            try WebPushHarness.job(
                to: subscription,
                message: .removal(of: "m-1", roomId: "room-7", senderId: "u1", deleteId: "d-1")
            )
        )
        let job = try WebPushHarness.job(to: subscription)
        let badge = await harness.transport.send(
            BadgeUpdateJob(
                updateId: 1,
                appId: WebPushHarness.appId,
                token: job.token,
                attempts: 0,
                deviceRegisteredAt: Date(),
                badge: 3
            )
        )
        await harness.stop()

        for result in [wake, removal, badge] {
            #expect(result == .fail(.relayBug, status: nil, reason: WebPushTransport.notForBrowsers))
        }
        #expect(harness.mock.answeredCount == 0)
    }

    @Test func oneVAPIDTokenServesManySendsToAnOrigin() async throws {
        let mockHarness = try WebPushHarness.start()
        let client = try WebPushClient(configuration: mockHarness.configuration)
        let subscriptions = try (0..<20).map { _ in try mockHarness.subscription() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for subscription in subscriptions {
                group.addTask {
                    let message = WebPushMessage(
                        subscription: try subscription.validated(allowingHTTP: true),
                        plaintext: Data(#"{"title":"t","body":"b","dittoChatRoomId":"r"}"#.utf8),
                        ttlSeconds: 60,
                        topic: nil
                    )
                    return try await client.send(message).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        await client.shutdown()
        await mockHarness.stop()

        #expect(statuses == Array(repeating: 201, count: 20))
        #expect(client.vapidTokensSigned == 1)
        #expect(Set(mockHarness.mock.requests.compactMap(\.vapidKey)) == [WebPushHarness.key.publicKeyBase64URL])
    }
}

/// A test failure with a message, for a `guard case` that did not match.
struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
