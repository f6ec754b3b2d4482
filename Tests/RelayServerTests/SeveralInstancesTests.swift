import APNsMock
import Foundation
import RelayCore
import RelayServer
import RelayStore
import Testing

/// Issue 14: several relays on one PostgreSQL database. Each polls only every five minutes here, so what
/// a relay sends of another's webhook, or of another's handed-back claims, it was woken to send by NOTIFY;
/// a live lease of one relay is never taken by another, an expired one is.
@Suite struct SeveralInstancesTests {
    /// A webhook through relay A (one push in flight at a time) wakes relay B, which sends part of the fan-out;
    /// every device gets the message exactly once.
    @Test func aWebhookThroughOneRelayWakesTheOther() async throws {
        try await withPostgresRelays { relays in
            let a = try await relays.start("relay-a") { $0.delivery.concurrency = 1 }
            let b = try await relays.start("relay-b") { $0.delivery.concurrency = 50 }
            let tokens = (0..<300).map { _ in randomToken() }
            try await relays.registerCrowd(tokens, through: a)
            let id = try await relays.postToCrowd(through: a)
            let view = try await relays.settled(id, through: b)
            #expect(view.counts.sent == tokens.count)
            #expect(relays.sendsByToken() == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) }))
            #expect(b.metrics.attemptsDecided > 0, "relay B was never woken")
            #expect(a.metrics.attemptsDecided + b.metrics.attemptsDecided == tokens.count)
        }
    }

    /// Instance A (a store of its own) claims the whole fan-out and dies. Relay B, starting, leaves A's
    /// leases alone and does not take them while they live; once they expire it sends every one.
    @Test func aLiveLeaseOfAnotherInstanceIsNotTakenAnExpiredOneIs() async throws {
        try await withPostgresRelays { relays in
            let tokens = (0..<20).map { _ in randomToken() }
            let app = relays.bed.apps[0]
            let notificationId: UUID
            do {
                let a = try relays.openStore()
                for (index, token) in tokens.enumerated() {
                    _ = try await a.upsertDevice(
                        appId: app.id,
                        token: .apns(try DeviceToken(parsing: token, environment: .sandbox)),
                        userId: "user\(index)",
                        rooms: ["crowd"],
                        at: Date()
                    )
                }
                let message = ChatMessage(roomId: "crowd", senderId: "s", content: .text("hi"), messageId: "m-1")
                let created = try await a.createNotification(
                    NewNotification(appId: app.id, message: message, sendAs: app.topic, createdAt: Date()),
                    recipients: .init(roomId: "crowd")
                )
                notificationId = created.notificationId
                let claimed = try await a.claimDueDeliveries(now: Date(), limit: 100, leaseSeconds: 8, owner: "relay-a")
                #expect(claimed.count == tokens.count)
            }
            // Polling every 200 ms: only expiry can make A's deliveries claimable.
            let b = try await relays.start("relay-b") { $0.delivery.pollIntervalMilliseconds = 200 }
            try await Task.sleep(for: .seconds(1))
            #expect(relays.bed.mock.requests.isEmpty, "relay B took live leases of relay A")
            let view = try await relays.settled(notificationId.lowercasedString, through: b)
            #expect(view.counts.sent == tokens.count)
            #expect(relays.sendsByToken() == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) }))
            #expect(b.metrics.attemptsDecided == tokens.count)
        }
    }

    /// Relay A has claimed the whole fan-out, ten sends in flight (the first ten of the fan-out's requests
    /// are answered after twenty seconds, the rest at once) and five queued, when it is stopped: it records
    /// the ten and hands back the five, and relay B, woken by the hand-back, sends those at once (its polling
    /// waits five minutes, the leases two). A's one connection is warmed first by a push answered at once, so
    /// the ten leave together instead of waiting behind a cold connection's first answer; the twenty seconds
    /// are then what relay B's start and A's stop have before an answer frees one of A's send slots for an
    /// eleventh, on a machine loaded by the whole suite. A allows a minute a request (the test bed's ten seconds
    /// would time the ten out).
    @Test func aGracefulStopHandsBackWhatItHadNotSent() async throws {
        let warm = randomToken()
        let slow = MockScript(devices: [.init(token: warm), .init(token: "*", delayMs: 20_000, count: 10)])
        try await withPostgresRelays(script: slow) { relays in
            let a = try await relays.start("relay-a") {
                $0.delivery.concurrency = 10
                $0.delivery.apnsConnections = 1
                $0.delivery.requestTimeoutMilliseconds = 60_000
            }
            try await relays.call(
                a,
                "POST",
                "/v1/devices",
                json: ["token": warm, "userId": "warm", "rooms": ["warm-room"]],
                status: 201
            )
            let warmUp = try await relays.call(
                a,
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "warm-room", "senderId": "speaker", "text": "first", "messageId": "warm-up"],
                status: 202
            )
            _ = try await relays.settled(try warmUp.decode(WebhookAnswer.self).notificationId, through: a)
            let tokens = (0..<15).map { _ in randomToken() }
            try await relays.registerCrowd(tokens, through: a)
            let id = try await relays.postToCrowd(through: a)
            // Every delivery claimed by A, none answered yet.
            let probe = try relays.openStore()
            let deadline = ContinuousClock.now + .seconds(10)
            while try await !probe.appsWithDueDeliveries(now: Date()).isEmpty {
                try #require(ContinuousClock.now < deadline, "relay A did not claim the fan-out")
                try await Task.sleep(for: .milliseconds(10))
            }
            try #require(try await probe.pendingDeliveryCount() == tokens.count)
            let b = try await relays.start("relay-b")
            await relays.stop(a)
            let view = try await relays.settled(id, through: b)
            #expect(view.counts.sent == tokens.count)
            var expected = Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) })
            expected[warm] = 1
            #expect(relays.sendsByToken() == expected)
            #expect(a.metrics.attemptsDecided == 1 + 10 && b.metrics.attemptsDecided == 5)
        }
    }

    /// Two live relays given one instance id: the second refuses to start, saying why.
    @Test func aSecondLiveRelayWithTheSameIdDoesNotStart() async throws {
        try await withPostgresRelays { relays in
            try await relays.start("relay-a")
            let error = await #expect(throws: StoreError.self) { try await relays.start("relay-a") }
            #expect(error?.code == .instanceInUse)
        }
    }
}
