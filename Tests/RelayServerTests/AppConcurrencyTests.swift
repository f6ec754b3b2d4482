import APNsMock
import Foundation
import Testing
import WebPushMock

/// Issue 4: `delivery.perAppConcurrency` keeps one app's unanswered APNs requests from taking every slot.
@Suite struct AppConcurrencyTests {
    @Test func anAppWhoseAPNsNeverAnswersDoesNotStallAnotherApp() async throws {
        let stuck = (0..<6).map { _ in randomToken() }
        let script = MockScript(devices: stuck.map { .init(token: $0, neverAnswer: true) })
        try await withRelayAndMock(
            appCount: 2,
            script: script,
            configure: { configuration in
                configuration.delivery.concurrency = 4
                configuration.delivery.perAppConcurrency = 2
                // Long enough that app A's requests are still hanging when app B's must have gone out.
                configuration.delivery.requestTimeoutMilliseconds = 120_000
            }
        ) { relay in
            // Closing the mock fails A's hanging requests at once, so the relay stops without waiting them out
            // (also when an expectation below throws).
            defer { relay.mock.stop() }
            let a = relay.apps[0], b = relay.apps[1]
            for (index, token) in stuck.enumerated() {
                try await relay.register(token, user: "a\(index)", rooms: ["room"], key: a.apiKey)
            }
            let fine = [randomToken(), randomToken(), randomToken()]
            for (index, token) in fine.enumerated() {
                try await relay.register(token, user: "b\(index)", rooms: ["room"], key: b.apiKey)
            }

            // The readiness probe's connections came before (the relay's start probes each endpoint once).
            let probed = relay.mock.acceptedConnections
            let stalled = try await relay.webhook(["roomId": "room", "senderId": "s", "text": "a"], key: a.apiKey)
            #expect(stalled.devices == stuck.count)
            // App A's sends are under way (its deliveries are older, so they are taken first in any case).
            let deadline = ContinuousClock.now + .seconds(20)
            while relay.mock.acceptedConnections == probed {
                try #require(ContinuousClock.now < deadline, "app A never connected")
                try await Task.sleep(for: .milliseconds(10))
            }
            let other = try await relay.webhook(["roomId": "room", "senderId": "s", "text": "b"], key: b.apiKey)
            #expect(other.devices == fine.count)
            let view = try await relay.settled(other.notificationId, key: b.apiKey)
            #expect(view.counts.sent == fine.count)
            for token in fine { #expect(relay.requests(to: token).map(\.status) == [200]) }

            // App A's requests were still unanswered all along.
            let aView = try await relay.notification(stalled.notificationId, key: a.apiKey)
            #expect(aView.counts.pending == stuck.count)
            #expect(aView.deliveries.allSatisfy { $0.attempts == 0 })
            for token in stuck { #expect(relay.requests(to: token).isEmpty) }
        }
    }

    /// One app whose lane holds fewer than half a batch (perAppConcurrency 2 of concurrency 8) keeps being
    /// claimed as its lane drains, never waiting for the poll interval, here a whole minute.
    @Test func aSingleAppFanOutNeverWaitsForThePollInterval() async throws {
        try await withRelayAndMock(
            configure: { configuration in
                configuration.delivery.concurrency = 8
                configuration.delivery.batchSize = 8
                configuration.delivery.perAppConcurrency = 2
                configuration.delivery.pollIntervalMilliseconds = 60_000
            }
        ) { relay in
            let tokens = (0..<20).map { _ in randomToken() }
            for (index, token) in tokens.enumerated() {
                try await relay.register(token, user: "u\(index)", rooms: ["room"])
            }
            let answer = try await relay.webhook(["roomId": "room", "senderId": "s", "text": "hi"])
            #expect(answer.devices == tokens.count)
            // Well under the poll interval: a claim that waited for it would leave requests missing.
            _ = try await relay.mock.waitForRequests(count: tokens.count, timeout: .seconds(30))
            for token in tokens { #expect(relay.requests(to: token).count == 1) }
        }
    }

    /// While one app's fan-out fills claim after claim, the claims go on with the apps the last round left
    /// due; a webhook for another app wakes the loop, which then reads the due apps again, so the other app
    /// is claimed within a round or two, not after the fan-out (the poll interval here is a minute).
    @Test func aWebhookForAnotherAppIsClaimedDuringAFanOut() async throws {
        let slow = (0..<80).map { _ in randomToken() }
        let script = MockScript(devices: slow.map { .init(token: $0, delayMs: 40) })
        try await withRelayAndMock(
            appCount: 2,
            script: script,
            configure: { configuration in
                configuration.delivery.concurrency = 2
                configuration.delivery.perAppConcurrency = 2
                configuration.delivery.batchSize = 2
                configuration.delivery.pollIntervalMilliseconds = 60_000
            }
        ) { relay in
            let a = relay.apps[0], b = relay.apps[1]
            for (index, token) in slow.enumerated() {
                try await relay.register(token, user: "a\(index)", rooms: ["room"], key: a.apiKey)
            }
            let other = randomToken()
            try await relay.register(other, user: "b", rooms: ["room"], key: b.apiKey)

            let fanOut = try await relay.webhook(["roomId": "room", "senderId": "s", "text": "a"], key: a.apiKey)
            #expect(fanOut.devices == slow.count)
            _ = try await relay.mock.waitForRequests(count: 1, timeout: .seconds(30))
            let single = try await relay.webhook(["roomId": "room", "senderId": "s", "text": "b"], key: b.apiKey)
            #expect(single.devices == 1)
            let view = try await relay.settled(single.notificationId, key: b.apiKey)
            #expect(view.counts.sent == 1)

            // Two at a time, 40 ms each: app A's fan-out takes over 1.6 s. Claimed only once A's claims ran
            // dry, B's push would come after all but the last few of A's (78 of 80 when the wake is ignored).
            let order = relay.mock.requests.map(\.deviceToken)
            let before = try #require(order.firstIndex(of: other))
            #expect(before < slow.count - 20, "\(before) of app A's pushes went before app B's")
            _ = try await relay.settled(fanOut.notificationId, key: a.apiKey)
        }
    }

    /// Issue 24: each app's pushes wait in one lane per platform. The app's browsers' push service never
    /// answers, so its web pushes hold every web slot (`perAppConcurrency` 1) until the request timeout;
    /// its iPhones' pushes are sent meanwhile.
    @Test func anAppWhoseWebPushesHangStillSendsItsIOSPushes() async throws {
        try await WebPushDeliveryTests.withWebPush { web in
            try await withRelayAndMock(
                configure: { configuration in
                    configuration.apps[0].webPush = web.settings
                    configuration.delivery.concurrency = 4
                    configuration.delivery.perAppConcurrency = 1
                    // Far beyond the wait for the iPhones' pushes below: the web push hangs all along.
                    configuration.delivery.requestTimeoutMilliseconds = 600_000
                }
            ) { relay in
                // Stopping the push service fails the hanging request at once, so the relay stops without
                // waiting it out (also when an expectation below throws).
                defer { web.mock.stop() }
                let browser = try web.mock.newSubscription()
                let id = try #require(MockWebPushServer.endpointId(of: browser.endpoint))
                web.mock.updateScript { $0.endpoints = [.init(id: id, neverAnswer: true)] }
                let webToken = try await WebPushDeliveryTests.register(relay, browser, user: "w", rooms: ["browsers"])
                let connected = web.mock.acceptedConnections
                let hanging = try await relay.webhook(["roomId": "browsers", "senderId": "s", "text": "web"])
                #expect(hanging.devices == 1)
                // The web push is under way: it holds the app's one web slot.
                let deadline = ContinuousClock.now + .seconds(60)
                while web.mock.acceptedConnections == connected {
                    try #require(ContinuousClock.now < deadline, "the web push never connected")
                    try await Task.sleep(for: .milliseconds(10))
                }

                let phones = [randomToken(), randomToken(), randomToken()]
                for (index, token) in phones.enumerated() {
                    try await relay.register(token, user: "p\(index)", rooms: ["phones"])
                }
                let sent = try await relay.webhook(["roomId": "phones", "senderId": "s", "text": "ios"])
                #expect(sent.devices == phones.count)
                let view = try await relay.settled(sent.notificationId)
                #expect(view.counts.sent == phones.count)
                for token in phones { #expect(relay.requests(to: token).map(\.status) == [200]) }

                // The web push was still unanswered all along.
                let webView = try await relay.notification(hanging.notificationId)
                #expect(webView.counts.pending == 1 && webView.delivery(for: webToken)?.attempts == 0)
                #expect(web.mock.requests.isEmpty)
            }
        }
    }
}
