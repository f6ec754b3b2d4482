import Foundation
import RelayCore

/// What happens to an APNs delivery, and to its device token, after one attempt: one pure function of the
/// answer, so every APNs rule is in one place and tested as a table. Whether a dead token's device registered
/// again since is not decided here but where the device is retired (the store's `retired` outcome), the one
/// place that sees its latest registration.
///
/// Source: Apple, "Handling notification responses from APNs" (the status and reason table, and "never
/// retry BadDeviceToken, DeviceTokenNotForTopic, Forbidden, ExpiredToken, Unregistered, PayloadTooLarge").
public enum APNsDecision: Sendable, Equatable {
    /// APNs accepted it.
    case delivered
    /// The token is dead (as of APNs' `timestamp` when it gave one): retire the device; it gets nothing more
    /// until registered again.
    case retire(reason: APNsReason, apnsTimestamp: Date?)
    /// The token does not belong to this topic: stop sending this topic to it (DeviceTokenNotForTopic).
    case unlinkTopic(reason: APNsReason)
    /// Try again after `delay`; `renewProviderToken` first mints a new provider token.
    case retry(after: Duration, renewProviderToken: Bool)
    /// Give up on this delivery; the device stays as it is.
    case fail(DeliveryFailure)
    /// APNs refused the relay's credentials (its provider token or certificate), not the push: the
    /// delivery waits, spending no attempt, while the outbox pauses the app's sends to that environment.
    case credentialsRefused
    /// No answer from APNs: the delivery waits, spending no attempt, while the outbox pauses the app's sends
    /// to that environment and probes it (``RelayCore/PushResult/unreachable(reason:)``).
    case unreachable

    /// The result of one attempt.
    public enum Attempt: Sendable, Equatable {
        /// APNs answered (any status).
        case answered(APNsResponse)
        /// No APNs answer: connect, TLS, timeout, reset or shutdown.
        case transportFailure
    }

    /// Decides a delivery's fate.
    /// - Parameters:
    ///   - attempt: what came back.
    ///   - attempts: attempts made so far, this one included (1 after the first).
    ///   - previousReason: the reason of the attempt before this one, if any (ExpiredProviderToken retries once).
    ///   - policy: the retry limits; `random` in 0..<1 sets the jitter (evaluated only for a retry).
    public static func decide(
        _ attempt: Attempt,
        attempts: Int,
        previousReason: APNsReason?,
        policy: RetryPolicy,
        random: @autoclosure () -> Double
    ) -> APNsDecision {
        func backOff() -> APNsDecision {
            retryOrExhausted(attempts: attempts, policy: policy, random: random())
        }
        guard case .answered(let response) = attempt else { return .unreachable }
        if response.isAccepted { return .delivered }
        let reason = response.reason ?? .unknown("")
        switch reason {
        case .unregistered, .expiredToken:
            return .retire(reason: reason, apnsTimestamp: response.timestamp)
        case .badDeviceToken:
            return .retire(reason: reason, apnsTimestamp: nil)
        case .deviceTokenNotForTopic:
            return .unlinkTopic(reason: reason)
        case .badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .invalidPushType, .missingTopic,
            .payloadEmpty, .payloadTooLarge:
            return .fail(.rejected)
        case .badCertificate, .badCertificateEnvironment, .invalidProviderToken, .missingProviderToken:
            return .credentialsRefused
        case .badTopic, .topicDisallowed, .badEnvironmentKeyIdInToken, .forbidden:
            return .fail(.configuration)
        case .duplicateHeaders, .missingDeviceToken, .badPath, .methodNotAllowed:
            return .fail(.relayBug)
        case .expiredProviderToken:
            if previousReason == .expiredProviderToken || attempts >= policy.maxAttempts {
                return .fail(.configuration)
            }
            return .retry(after: .zero, renewProviderToken: true)
        case .idleTimeout, .unrelatedKeyIdInToken, .tooManyProviderTokenUpdates, .tooManyRequests,
            .internalServerError, .serviceUnavailable, .shutdown:
            return backOff()
        case .unknown:
            switch response.status {
            case 429, 500...599: return backOff()
            default: return .fail(.rejected)
            }
        }
    }

    private static func retryOrExhausted(attempts: Int, policy: RetryPolicy, random: Double) -> APNsDecision {
        guard attempts < policy.maxAttempts else { return .fail(.exhausted) }
        return .retry(after: policy.delay(afterFailures: attempts, random: random), renewProviderToken: false)
    }
}
