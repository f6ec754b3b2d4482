import APNsMock
import Foundation
import RelayCore
import RelayTestSupport
import Testing

/// Issue 23: APNs refusing the relay's credentials (InvalidProviderToken) pauses the app's sends to that
/// environment instead of failing every delivery: the deliveries stay pending with no attempt spent, the
/// pause shows in `/readyz` and `pushrelay_provider_paused`, and once APNs accepts again (the operator fixed
/// the key) the probe resumes the sends and every delivery is sent.
@Suite struct ProviderPauseTests {
    static let refuse = MockScript(devices: [.init(token: "*", status: 403, reason: "InvalidProviderToken")])

    @Test func aRefusedProviderTokenPausesThenResumesWithEveryDeliverySent() async throws {
        try await withRelayAndMock(script: Self.refuse) { harness in
            let tokens = (0..<6).map { _ in randomToken() }
            for (index, token) in tokens.enumerated() {
                try await harness.register(token, user: "user\(index)", rooms: ["lobby"])
            }
            let id = try await harness.webhook(["roomId": "lobby", "senderId": "speaker", "text": "hello"])
                .notificationId
            _ = try await harness.mock.waitForRequests(count: 1, timeout: .seconds(60))

            // Paused: every delivery pending, none with an attempt spent, and the app named.
            try await Self.waitUntil(harness, "the app paused") {
                $0.contains(#"pushrelay_provider_paused{app="app0",platform="ios",environment="sandbox"} 1"#)
            }
            let paused = try await harness.notification(id)
            #expect(paused.counts.pending == tokens.count)
            #expect(paused.deliveries.allSatisfy { $0.attempts == 0 })
            #expect(paused.deliveries.contains { $0.lastReason == "InvalidProviderToken" })
            let ready = try await harness.adminCall("/readyz")
            #expect(ready.text.contains("provider:app0"))
            #expect(ready.text.contains("InvalidProviderToken"))
            let metrics = try await harness.adminCall("/metrics").text
            #expect(
                metrics.contains(
                    #"pushrelay_provider_paused{app="app0",platform="ios",environment="sandbox"} 1"#
                )
            )
            #expect(
                metrics.contains(
                    #"pushrelay_provider_paused{app="app0",platform="ios",environment="production"} 0"#
                )
            )
            // One refusal per delivery in flight at most, then one probe per step: far fewer than a retry storm.
            #expect(harness.mock.requests.count <= tokens.count + 2)

            try await Self.resumeAndExpectEachSentOnce(harness, id, tokens)
            #expect(try await harness.adminCall("/readyz").text.contains("provider:") == false)
            #expect(
                try await harness.adminCall("/metrics").text.contains(
                    #"pushrelay_provider_paused{app="app0",platform="ios",environment="sandbox"} 0"#
                )
            )
        }
    }

    /// An APNs that does not answer at all (every request times out) pauses the app's sends the same way:
    /// where two attempts would have failed every delivery (`exhausted`), each waits with no attempt spent,
    /// under `pushrelay_provider_unreachable`, and once APNs answers again each is sent once.
    @Test func anAPNsThatDoesNotAnswerHoldsEveryDeliveryUntilItAnswers() async throws {
        let silent = MockScript(devices: [.init(token: "*", neverAnswer: true)])
        try await withRelayAndMock(
            script: silent,
            configure: { configuration in
                configuration.delivery.requestTimeoutMilliseconds = 300
                configuration.delivery.retry.maxAttempts = 2
                configuration.delivery.retry.baseDelayMilliseconds = 10
            }
        ) { harness in
            defer { harness.mock.stop() }
            let tokens = (0..<4).map { _ in randomToken() }
            for (index, token) in tokens.enumerated() {
                try await harness.register(token, user: "user\(index)", rooms: ["lobby"])
            }
            let id = try await harness.webhook(["roomId": "lobby", "senderId": "speaker", "text": "hello"])
                .notificationId
            let gauge = #"pushrelay_provider_unreachable{app="app0",platform="ios",environment="sandbox"}"#
            try await Self.waitUntil(harness, "the app paused as unreachable") { $0.contains("\(gauge) 1") }
            // Every delivery tried (each request timed out) and held, none with an attempt spent.
            try await RelayTestSupport.waitUntil("every delivery tried") {
                try await harness.notification(id).deliveries.allSatisfy { $0.lastReason == "Unreachable" }
            }
            let held = try await harness.notification(id)
            #expect(held.counts.pending == tokens.count && held.counts.failed == 0)
            #expect(held.deliveries.allSatisfy { $0.attempts == 0 && $0.status == "pending" })
            let ready = try await harness.adminCall("/readyz")
            #expect(ready.status == 200 && ready.text.contains("paused (Unreachable: ios sandbox)"), "\(ready.text)")
            #expect(
                try await harness.adminCall("/metrics").text.contains(
                    #"pushrelay_provider_paused{app="app0",platform="ios",environment="sandbox"} 0"#
                )
            )

            try await Self.resumeAndExpectEachSentOnce(harness, id, tokens)
            #expect(try await harness.adminCall("/metrics").text.contains("\(gauge) 0"))
        }
    }

    /// FCM's token endpoint refusing the app's service account (`invalid_grant`) is a refusal of the relay's
    /// credentials, not an outage: the app's Android sends pause, the delivery waits with no attempt spent.
    @Test func aServiceAccountTheTokenEndpointRefusesPausesAndroidSends() async throws {
        try await withRelayAndMock(configure: { configuration in
            guard let file = configuration.apps[0].fcm?.serviceAccountFile else { return }
            var account = try! FCMServiceAccount(contentsOfFile: file)
            account.clientEmail = "someone-else@chat-app-1234.iam.gserviceaccount.com"
            let stranger = file + ".stranger.json"
            try! account.encoded().write(to: URL(fileURLWithPath: stranger))
            configuration.apps[0].fcm?.serviceAccountFile = stranger
        }) { harness in
            let token = PlatformDeliveryTests.fcmToken(1)
            try await harness.register(token, user: "bob", rooms: ["lobby"], platform: "android")
            let id = try await harness.webhook(["roomId": "lobby", "senderId": "alice", "text": "hello"])
                .notificationId
            try await Self.waitUntil(harness, "Android sends paused") {
                $0.contains(#"pushrelay_provider_paused{app="app0",platform="android",environment="none"} 1"#)
            }
            let view = try await harness.notification(id)
            #expect(view.counts.pending == 1 && view.counts.failed == 0)
            #expect(view.deliveries.allSatisfy { $0.attempts == 0 && $0.lastReason == "AccessTokenRefused" })
            let ready = try await harness.adminCall("/readyz").text
            #expect(ready.contains("paused (AccessTokenRefused: android)"), "\(ready)")
            #expect(harness.fcm.requests.isEmpty)
        }
    }

    /// Has the mock answer every push again, waits for notification `id` to settle, and expects each of
    /// `tokens` sent once, on the one attempt that counted.
    private static func resumeAndExpectEachSentOnce(
        _ harness: RelayHarness,
        _ id: String,
        _ tokens: [String]
    ) async throws {
        harness.mock.updateScript { $0 = MockScript() }
        let view = try await harness.settled(id, timeout: .seconds(120))
        #expect(view.counts.sent == tokens.count)
        #expect(view.deliveries.allSatisfy { $0.attempts == 1 })
        for token in tokens {
            #expect(harness.requests(to: token).filter { $0.status == 200 }.count == 1)
        }
    }

    /// Polls the admin `/metrics` until `done` holds for its text (up to 60 s).
    private static func waitUntil(
        _ harness: RelayHarness,
        _ what: String,
        _ done: (String) -> Bool
    ) async throws {
        try await RelayTestSupport.waitUntil(what) { done(try await harness.adminCall("/metrics").text) }
    }
}
