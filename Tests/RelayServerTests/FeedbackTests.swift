import APNsMock
import Foundation
import RelayCore
import RelayCrypto
import RelayOutbox
import RelayServer
import Testing

@testable import RelayStore

@Suite struct FeedbackTests {
    static let secret = "feedback-secret-0123456789"

    /// Retry delays of 20...100 ms, so two failures cost well under a second.
    static var fastFeedback: FeedbackSender.Settings {
        var settings = FeedbackSender.Settings()
        settings.retry = RetryPolicy(maxAttempts: 100, baseDelayMilliseconds: 40, maxDelayMilliseconds: 100)
        settings.pollIntervalMilliseconds = 20
        settings.requestTimeoutMilliseconds = 5000
        return settings
    }

    @Test func aRetiredTokenIsPostedSignedAndRetriedUntilAccepted() async throws {
        let receiver = try FeedbackReceiver(answers: [500, 500])
        let token = FeedbackHarness.randomToken()
        let apnsTimestamp = FeedbackHarness.futureAPNsTimestamp()
        let script = MockScript(devices: [
            .init(token: token, status: 410, reason: "Unregistered", timestamp: apnsTimestamp)
        ])
        do {
            try await FeedbackHarness.with(script: script, feedback: Self.fastFeedback) { configuration in
                configuration.apps[0].feedbackURL = receiver.url
                configuration.apps[0].webhookSecret = Self.secret
            } _: { harness in
                let app = harness.apps[0]
                try await harness.registerAndNotify(token: token, user: "bob", app: app, secret: Self.secret)
                let deadline = ContinuousClock.now + .seconds(20)
                while true {
                    let accepted = receiver.received.contains { $0.answered == 200 }
                    if accepted, try await harness.relay.store.pendingFeedbackCount() == 0 { break }
                    guard ContinuousClock.now < deadline else {
                        Issue.record("feedback not accepted; received \(receiver.received.map(\.answered))")
                        return
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                let received = receiver.received
                #expect(received.map(\.answered) == [500, 500, 200])
                let accepted = try #require(received.last)
                #expect(accepted.headers["content-type"] == "application/json")
                // Every attempt carries the same body, each with a signature that verifies.
                for attempt in received {
                    #expect(attempt.body == accepted.body)
                    #expect(throws: Never.self) {
                        try WebhookSignature.verify(
                            attempt.headers[WebhookSignature.header],
                            body: attempt.body,
                            secret: Self.secret,
                            now: Date()
                        )
                    }
                }
                let json = try #require(try JSONSerialization.jsonObject(with: accepted.body) as? [String: Any])
                #expect(json["appId"] as? String == app.id)
                #expect(json["token"] as? String == token)
                #expect(json["userId"] as? String == "bob")
                #expect(json["environment"] as? String == "sandbox")
                #expect(json["reason"] as? String == "Unregistered")
                #expect(
                    json["apnsTimestamp"] as? String
                        == Timestamp.rfc3339(Date(timeIntervalSince1970: Double(apnsTimestamp) / 1000))
                )
                let retiredAt = try #require(json["retiredAt"] as? String)
                #expect(Timestamp.parse(retiredAt) != nil)
                #expect(
                    Set(json.keys) == [
                        "appId", "token", "platform", "userId", "environment", "reason", "apnsTimestamp", "retiredAt",
                    ]
                )

                // The pending count is read from the store in the background: asked until it is read after the POST.
                var metrics = try await harness.adminCall("/metrics").text
                let scraping = ContinuousClock.now + .seconds(60)
                while !metrics.contains("pushrelay_feedback_pending 0"), ContinuousClock.now < scraping {
                    try await Task.sleep(for: .milliseconds(100))
                    metrics = try await harness.adminCall("/metrics").text
                }
                #expect(metrics.contains("pushrelay_feedback_total{outcome=\"delivered\"} 1"))
                #expect(metrics.contains("pushrelay_feedback_total{outcome=\"retry\"} 2"))
                #expect(metrics.contains("pushrelay_feedback_pending 0"))
            }
        } catch {
            await receiver.shutdown()
            throw error
        }
        await receiver.shutdown()
        #expect(receiver.received.count == 3)
    }

    @Test func anAppWithoutAFeedbackURLQueuesNothing() async throws {
        let token = FeedbackHarness.randomToken()
        let script = MockScript(devices: [.init(token: token, status: 410, reason: "Unregistered")])
        try await FeedbackHarness.with(script: script, feedback: Self.fastFeedback) { harness in
            try await harness.registerAndNotify(token: token, user: "bob", app: harness.apps[0])
            _ = try await harness.deadTokens(count: 1, app: harness.apps[0])
            #expect(try await harness.relay.store.pendingFeedbackCount() == 0)
        }
    }

    @Test func feedbackThatNeverGetsA2xxExpiresAndIsDropped() async throws {
        let receiver = try FeedbackReceiver(answers: Array(repeating: 503, count: 1000))
        let token = FeedbackHarness.randomToken()
        let script = MockScript(devices: [.init(token: token, status: 410, reason: "Unregistered")])
        var settings = Self.fastFeedback
        // Long enough for a first POST on a loaded machine, short enough that the retries run it out.
        settings.lifetimeSeconds = 5
        do {
            try await FeedbackHarness.with(script: script, feedback: settings) { configuration in
                configuration.apps[0].feedbackURL = receiver.url
            } _: { harness in
                try await harness.registerAndNotify(token: token, user: "bob", app: harness.apps[0])
                // The metric counts the decision; the store records it with the batch right after.
                let deadline = ContinuousClock.now + .seconds(30)
                while true {
                    let metrics = try await harness.adminCall("/metrics").text
                    if metrics.contains("pushrelay_feedback_total{outcome=\"expired\"} 1"),
                        try await harness.relay.store.pendingFeedbackCount() == 0
                    {
                        break
                    }
                    guard ContinuousClock.now < deadline else {
                        Issue.record("feedback never expired and left the queue")
                        return
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(!receiver.received.isEmpty && receiver.received.allSatisfy { $0.answered == 503 })
                // Unsigned: the app has no webhookSecret.
                #expect(receiver.received.allSatisfy { $0.headers[WebhookSignature.header] == nil })
            }
        } catch {
            await receiver.shutdown()
            throw error
        }
        await receiver.shutdown()
    }
}
