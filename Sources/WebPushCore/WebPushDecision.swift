import RelayCore

/// What happens to a Web Push delivery, and to its subscription, after one attempt: one pure function of
/// the answer, so every rule is in one place and tested as a table.
///
/// Sources: RFC 8030 §5 (201 Created), §6.2 (404 for an expired subscription), §8.3 (413); RFC 8292 §4
/// (401 for missing or invalid VAPID credentials, 403 for a key the subscription is not bound to); the big
/// push services' documented codes (Mozilla autopush: 404/410 gone, 413, 429; FCM web push: 400, 403, 404,
/// 410, 413, 429, 5xx; Apple: 400, 403, 404, 410, 413, 429, 5xx).
public enum WebPushDecision: Sendable, Equatable {
    /// The push service took it.
    case delivered
    /// The subscription is gone (404, 410): retire the device.
    case retire
    /// Try again after `after`.
    case retry(after: Duration)
    /// Give up on this delivery; the device stays as it is.
    case fail(DeliveryFailure)
    /// 403: the push service refused the relay's VAPID credentials for this subscription (the key it was
    /// made with is another, or the service refuses the sender). The delivery fails; refusals of several
    /// subscriptions of one origin pause that origin (never the app: any site can run a push service).
    case forbidden

    /// The result of one attempt.
    public enum Attempt: Sendable, Equatable {
        /// The push service answered (any status).
        case answered(WebPushResponse)
        /// No answer: connect, TLS, timeout, reset.
        case transportFailure
    }

    /// Decides a delivery's fate.
    ///
    /// | answer | fate |
    /// |---|---|
    /// | 200, 201, 202 | delivered |
    /// | 404, 410 | retire |
    /// | 403 | forbidden (fails; counts toward the origin's pause) |
    /// | 413, 400, 401, any other | fail (rejected) |
    /// | 429, 5xx; no answer | retry with back-off, never sooner than `Retry-After` up to `maxRetryAfter` |
    ///
    /// Retries stop at `policy.maxAttempts` (fail, exhausted).
    /// - Parameters:
    ///   - attempts: attempts made so far, this one included (1 after the first).
    ///   - maxRetryAfter: the longest `Retry-After` honoured: a push service's host may be anyone's, and
    ///     an answer must not park a delivery for long.
    ///   - random: a value in 0..<1 for the jitter (evaluated only for a retry).
    public static func decide(
        _ attempt: Attempt,
        attempts: Int,
        policy: RetryPolicy,
        maxRetryAfter: Duration,
        random: @autoclosure () -> Double
    ) -> WebPushDecision {
        func backOff(notBefore retryAfter: Duration? = nil) -> WebPushDecision {
            guard attempts < policy.maxAttempts else { return .fail(.exhausted) }
            let delay = policy.delay(afterFailures: attempts, random: random())
            return .retry(after: max(delay, min(retryAfter ?? .zero, maxRetryAfter)))
        }
        guard case .answered(let response) = attempt else { return backOff() }
        if response.isAccepted { return .delivered }
        switch response.status {
        case 404, 410: return .retire
        case 403: return .forbidden
        case 429, 500...599: return backOff(notBefore: response.retryAfter)
        default: return .fail(.rejected)
        }
    }
}
