import Foundation

/// What happens to a delivery, and to its device token, after one attempt: one pure function of the
/// answer and the device's registration, so every rule is in one place and tested as a table.
///
/// Source: Apple, "Handling notification responses from APNs" (the status and reason table, and "never
/// retry BadDeviceToken, DeviceTokenNotForTopic, Forbidden, ExpiredToken, Unregistered, PayloadTooLarge").
public enum DeliveryDecision: Sendable, Equatable {
    /// APNs accepted it.
    case delivered
    /// The token is dead: retire the device; it gets nothing more until registered again.
    case retire(reason: APNsReason, apnsTimestamp: Date?)
    /// The token does not belong to this topic: stop sending this topic to it (DeviceTokenNotForTopic).
    case unlinkTopic(reason: APNsReason)
    /// Try again after `delay`; `renewProviderToken` first mints a new provider token.
    case retry(after: Duration, renewProviderToken: Bool)
    /// Give up on this delivery; the device stays as it is.
    case fail(Failure)

    /// Why a delivery was given up.
    public enum Failure: String, Sendable, Equatable, Codable {
        /// APNs refused the notification itself; sending it again cannot help.
        case rejected
        /// The app's APNs configuration is wrong (topic, key, certificate): the operator must act.
        case configuration
        /// A request the relay should never have produced.
        case relayBug = "relay_bug"
        /// Retries used up.
        case exhausted
        /// A 410 older than the device's latest registration: the token was registered again since.
        case staleUnregistered = "stale_unregistered"
        /// A BadDeviceToken for an environment the token was not registered in.
        case wrongEnvironment = "wrong_environment"
    }

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
    ///   - sentTo: the environment the request went to.
    ///   - registeredEnvironment: the environment the device registered with.
    ///   - registeredAt: the device's latest registration.
    ///   - attempts: attempts made so far, this one included (1 after the first).
    ///   - previousReason: the reason of the attempt before this one, if any (ExpiredProviderToken retries once).
    ///   - policy: the retry limits; `random` in 0..<1 sets the jitter (evaluated only for a retry).
    public static func decide(
        _ attempt: Attempt,
        sentTo: APNsEnvironment,
        registeredEnvironment: APNsEnvironment,
        registeredAt: Date,
        attempts: Int,
        previousReason: APNsReason?,
        policy: RetryPolicy,
        random: @autoclosure () -> Double
    ) -> DeliveryDecision {
        func backOff() -> DeliveryDecision {
            retryOrExhausted(attempts: attempts, policy: policy, random: random())
        }
        guard case .answered(let response) = attempt else { return backOff() }
        if response.isAccepted { return .delivered }
        let reason = response.reason ?? .unknown("")
        switch reason {
        case .unregistered, .expiredToken:
            if let timestamp = response.timestamp, registeredAt > timestamp { return .fail(.staleUnregistered) }
            return .retire(reason: reason, apnsTimestamp: response.timestamp)
        case .badDeviceToken:
            return sentTo == registeredEnvironment
                ? .retire(reason: reason, apnsTimestamp: nil) : .fail(.wrongEnvironment)
        case .deviceTokenNotForTopic:
            return .unlinkTopic(reason: reason)
        case .badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .invalidPushType, .missingTopic,
            .payloadEmpty, .payloadTooLarge:
            return .fail(.rejected)
        case .badTopic, .topicDisallowed, .badCertificate, .badCertificateEnvironment, .invalidProviderToken,
            .badEnvironmentKeyIdInToken, .forbidden:
            return .fail(.configuration)
        case .duplicateHeaders, .missingDeviceToken, .badPath, .methodNotAllowed, .missingProviderToken:
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

    private static func retryOrExhausted(attempts: Int, policy: RetryPolicy, random: Double) -> DeliveryDecision {
        guard attempts < policy.maxAttempts else { return .fail(.exhausted) }
        return .retry(after: policy.delay(afterFailures: attempts, random: random), renewProviderToken: false)
    }
}
