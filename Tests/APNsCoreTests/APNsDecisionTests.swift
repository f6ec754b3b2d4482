import APNsCore
import Foundation
import RelayCore
import Testing

@Suite struct APNsDecisionTests {
    static let policy = RetryPolicy(maxAttempts: 3, baseDelayMilliseconds: 1000, maxDelayMilliseconds: 60_000)

    static func decide(
        _ status: Int,
        _ reason: String?,
        timestamp: Date? = nil,
        attempts: Int = 1,
        previous: APNsReason? = nil
    ) -> APNsDecision {
        let response = APNsResponse(status: status, reason: reason.map(APNsReason.init), timestamp: timestamp)
        return APNsDecision.decide(
            .answered(response),
            attempts: attempts,
            previousReason: previous,
            policy: policy,
            random: 0
        )
    }

    static let retrySoon = APNsDecision.retry(after: .milliseconds(500), renewProviderToken: false)

    @Test(
        arguments: [
            (200, nil, APNsDecision.delivered),
            (410, "Unregistered", .retire(reason: .unregistered, apnsTimestamp: nil)),
            (410, "ExpiredToken", .retire(reason: .expiredToken, apnsTimestamp: nil)),
            (400, "BadDeviceToken", .retire(reason: .badDeviceToken, apnsTimestamp: nil)),
            (400, "DeviceTokenNotForTopic", .unlinkTopic(reason: .deviceTokenNotForTopic)),
            (400, "BadCollapseId", .fail(.rejected)),
            (413, "PayloadTooLarge", .fail(.rejected)),
            (400, "TopicDisallowed", .fail(.configuration)),
            (403, "InvalidProviderToken", .credentialsRefused),
            (403, "BadCertificate", .credentialsRefused),
            (403, "BadCertificateEnvironment", .credentialsRefused),
            (403, "Forbidden", .fail(.configuration)),
            (404, "BadPath", .fail(.relayBug)),
            (403, "MissingProviderToken", .credentialsRefused),
            (403, "ExpiredProviderToken", .retry(after: .zero, renewProviderToken: true)),
            (429, "TooManyRequests", retrySoon),
            (429, "TooManyProviderTokenUpdates", retrySoon),
            (500, "InternalServerError", retrySoon),
            (503, "Shutdown", retrySoon),
            (400, "IdleTimeout", retrySoon),
            (503, "SomethingNew", retrySoon),
            (400, "SomethingNew", .fail(.rejected)),
        ] as [(Int, String?, APNsDecision)]
    )
    func answersMapToFates(status: Int, reason: String?, expected: APNsDecision) {
        #expect(Self.decide(status, reason) == expected)
    }

    /// The 410's timestamp goes with the retirement: the store keeps a device registered again after it.
    @Test func a410CarriesItsTimestamp() {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(Self.decide(410, "Unregistered", timestamp: at) == .retire(reason: .unregistered, apnsTimestamp: at))
    }

    @Test func expiredProviderTokenRetriesOnce() {
        #expect(
            Self.decide(403, "ExpiredProviderToken", attempts: 2, previous: .expiredProviderToken)
                == .fail(.configuration)
        )
    }

    /// An answer's retries stop at the limit; no answer is no attempt the limit counts, at any count.
    @Test func retriesStopAtTheLimitAndNoAnswerIsUnreachable() {
        #expect(Self.decide(503, "ServiceUnavailable", attempts: 3) == .fail(.exhausted))
        for attempts in [1, 3, 40] {
            let transport = APNsDecision.decide(
                .transportFailure,
                attempts: attempts,
                previousReason: nil,
                policy: Self.policy,
                random: 1
            )
            #expect(transport == .unreachable)
        }
    }

    @Test func backOffGrowsAndIsCapped() {
        #expect(Self.policy.delay(afterFailures: 1, random: 0) == .milliseconds(500))
        #expect(Self.policy.delay(afterFailures: 3, random: 1) == .milliseconds(4000))
        #expect(Self.policy.delay(afterFailures: 40, random: 1) == .milliseconds(60_000))
    }
}
