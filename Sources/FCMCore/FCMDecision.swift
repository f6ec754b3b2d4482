import Foundation
import RelayCore

/// What happens to an FCM delivery, and to its registration token, after one attempt: one pure function of
/// the answer, so every rule is in one place and tested as a table.
///
/// Source: Firebase, "FCM error codes" and "ErrorCode". The decision reads FCM's `errorCode`, never the
/// HTTP status alone: a 404 without `UNREGISTERED` (a wrong project id) or a 403 without
/// `SENDER_ID_MISMATCH` (a service account without permission) is the operator's to fix and must not retire
/// every token of the app.
public enum FCMDecision: Sendable, Equatable {
    /// FCM accepted it.
    case delivered
    /// The token is dead (UNREGISTERED), belongs to another sender (SENDER_ID_MISMATCH) or is malformed
    /// (INVALID_ARGUMENT naming the token): retire the device.
    case retire(FCMErrorCode)
    /// Try again after `after` (exponential back-off with jitter, never sooner than `Retry-After` up to the
    /// policy's longest delay).
    case retry(after: Duration)
    /// Give up on this delivery; the device stays as it is.
    case fail(DeliveryFailure)
    /// FCM refused the relay's credentials (its service account or access token), not the message: the
    /// delivery waits, spending no attempt, while the outbox pauses the app's Android sends.
    case credentialsRefused
    /// No answer from FCM: the delivery waits, spending no attempt, while the outbox pauses the app's Android
    /// sends and probes FCM (``RelayCore/PushResult/unreachable(reason:)``).
    case unreachable

    /// The result of one attempt.
    public enum Attempt: Sendable, Equatable {
        /// FCM answered (any status).
        case answered(FCMResponse)
        /// The token endpoint refused the relay's service account (a 4xx OAuth error: a wrong or revoked
        /// key, an account without the scope), with this `status`: no message was sent.
        case accessTokenRefused(status: Int)
        /// No FCM answer: connect, TLS, timeout, reset, shutdown, or no access token to be had for another
        /// reason (the token endpoint not answering, or answering 429, 5xx or what is no token).
        case transportFailure
    }

    /// Decides a delivery's fate.
    ///
    /// | answer | fate |
    /// |---|---|
    /// | 200 | delivered |
    /// | UNREGISTERED (404), SENDER_ID_MISMATCH (403) | retire |
    /// | INVALID_ARGUMENT (400, or a 400 INVALID_ARGUMENT status without FcmError) | retire when it names the token, else fail (rejected) |
    /// | QUOTA_EXCEEDED (429), UNAVAILABLE (503), INTERNAL (500), UNSPECIFIED_ERROR | retry with back-off, honouring `Retry-After` up to `policy.maxDelayMilliseconds` |
    /// | THIRD_PARTY_AUTH_ERROR (401) | credentials refused |
    /// | 401 UNAUTHENTICATED without errorCode | credentials refused: the client already renewed the access token once and FCM refused the new one too |
    /// | other 401, 403 without errorCode | credentials refused |
    /// | the token endpoint refused the service account | credentials refused |
    /// | 404 without errorCode | fail (configuration) |
    /// | other 429, 5xx | retry with back-off |
    /// | no answer | unreachable |
    /// | anything else | fail (rejected) |
    ///
    /// Retries stop at `policy.maxAttempts` (fail, exhausted).
    /// - Parameters:
    ///   - attempts: attempts made so far, this one included (1 after the first).
    ///   - random: a value in 0..<1 for the jitter (evaluated only for a retry).
    public static func decide(
        _ attempt: Attempt,
        attempts: Int,
        policy: RetryPolicy,
        random: @autoclosure () -> Double
    ) -> FCMDecision {
        func backOff(notBefore retryAfter: Duration? = nil) -> FCMDecision {
            guard attempts < policy.maxAttempts else { return .fail(.exhausted) }
            let delay = policy.delay(afterFailures: attempts, random: random())
            // Google's Retry-After is honoured up to the policy's longest delay: an answer cannot park a
            // delivery past its expiry, or past any time the store can hold.
            let longest = Duration.milliseconds(policy.maxDelayMilliseconds)
            return .retry(after: max(delay, min(retryAfter ?? .zero, longest)))
        }
        let response: FCMResponse
        switch attempt {
        case .answered(let answer): response = answer
        case .accessTokenRefused: return .credentialsRefused
        case .transportFailure: return .unreachable
        }
        if response.isAccepted { return .delivered }
        switch response.errorCode {
        case .unregistered, .senderIdMismatch:
            return .retire(response.errorCode!)
        case .invalidArgument:
            return response.namesToken ? .retire(.invalidArgument) : .fail(.rejected)
        case .quotaExceeded, .unavailable, .internal, .unspecifiedError:
            return backOff(notBefore: response.retryAfter)
        case .thirdPartyAuthError:
            return .credentialsRefused
        case .unknown, nil:
            if response.errorStatus == "INVALID_ARGUMENT" {
                return response.namesToken ? .retire(.invalidArgument) : .fail(.rejected)
            }
            switch response.status {
            case 401, 403: return .credentialsRefused
            case 404: return .fail(.configuration)
            case 429, 500...599: return backOff(notBefore: response.retryAfter)
            default: return .fail(.rejected)
            }
        }
    }
}
