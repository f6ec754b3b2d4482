import Foundation
import RelayCore
import Testing
import WebPushCore

/// Each answer of a push service and what becomes of the delivery.
@Suite struct WebPushDecisionTests {
    static let policy = RetryPolicy(maxAttempts: 5, baseDelayMilliseconds: 1000, maxDelayMilliseconds: 60_000)

    static func decide(_ status: Int, retryAfter: Duration? = nil, attempts: Int = 1) -> WebPushDecision {
        WebPushDecision.decide(
            .answered(WebPushResponse(status: status, retryAfter: retryAfter)),
            attempts: attempts,
            policy: policy,
            maxRetryAfter: .seconds(600),
            random: 0
        )
    }

    @Test(arguments: [
        (200, WebPushDecision.delivered), (201, .delivered), (202, .delivered),
        (404, .retire), (410, .retire),
        (403, .forbidden),
        (400, .fail(.rejected)), (401, .fail(.rejected)), (413, .fail(.rejected)), (301, .fail(.rejected)),
        (415, .fail(.rejected)), (204, .fail(.rejected)),
        (429, .retry(after: .milliseconds(500))), (500, .retry(after: .milliseconds(500))),
        (502, .retry(after: .milliseconds(500))), (503, .retry(after: .milliseconds(500))),
    ])
    func answers(status: Int, decision: WebPushDecision) {
        #expect(Self.decide(status) == decision)
    }

    @Test func retryAfterIsHonouredUpToTheCap() {
        #expect(Self.decide(429, retryAfter: .seconds(30)) == .retry(after: .seconds(30)))
        #expect(Self.decide(503, retryAfter: .seconds(86_400)) == .retry(after: .seconds(600)))
        // Never sooner than the back-off.
        #expect(Self.decide(503, retryAfter: .zero) == .retry(after: .milliseconds(500)))
    }

    @Test func noAnswerRetriesUntilTheAttemptsAreSpent() {
        let decide = { (attempts: Int) in
            WebPushDecision.decide(
                .transportFailure,
                attempts: attempts,
                policy: Self.policy,
                maxRetryAfter: .seconds(600),
                random: 0
            )
        }
        #expect(decide(1) == .retry(after: .milliseconds(500)))
        #expect(decide(2) == .retry(after: .milliseconds(1000)))
        #expect(decide(5) == .fail(.exhausted))
        #expect(Self.decide(429, attempts: 5) == .fail(.exhausted))
    }

    @Test func theLocationsLastSegmentIsTheMessageId() {
        let now = Date()
        let answer = WebPushResponse(
            status: 201,
            location: "https://push.example/m/gAAAAABk-x_1?q=1",
            retryAfterHeader: nil,
            now: now
        )
        #expect(answer.messageId == "gAAAAABk-x_1")
        #expect(
            WebPushResponse(status: 201, location: nil, retryAfterHeader: "12", now: now).retryAfter == .seconds(12)
        )
        #expect(WebPushResponse(status: 201, location: "/", retryAfterHeader: nil, now: now).messageId == nil)
    }
}
