import Foundation

extension PushRelayClient {
    /// How a call is retried after a 429, a 5xx other than 501/505, or a network failure: exponential
    /// back-off with jitter, never sooner than the answer's `Retry-After`.
    public struct RetryPolicy: Sendable, Equatable {
        /// Attempts in all, the first included (at least 1). Default 5.
        public var maxAttempts: Int
        /// The wait before the second attempt, in seconds, doubling per attempt. Default 0.5.
        public var baseDelay: TimeInterval
        /// The longest wait, in seconds, at most ``longestDelay``. A `Retry-After` longer than this ends the
        /// call with the answer's error (its ``PushRelayError/retryAfter`` set) instead of holding it.
        /// Default 30.
        public var maxDelay: TimeInterval {
            didSet { maxDelay = min(max(0, maxDelay), Self.longestDelay) }
        }
        /// One attempt's timeout, in seconds (`URLRequest.timeoutInterval`). Default 30.
        public var requestTimeout: TimeInterval

        public init(
            maxAttempts: Int = 5,
            baseDelay: TimeInterval = 0.5,
            maxDelay: TimeInterval = 30,
            requestTimeout: TimeInterval = 30
        ) {
            self.maxAttempts = max(1, maxAttempts)
            self.baseDelay = max(0, baseDelay)
            self.maxDelay = min(max(0, maxDelay), Self.longestDelay)
            self.requestTimeout = requestTimeout > 0 ? requestTimeout : 30
        }

        /// The most ``maxDelay`` may be, in seconds: a day.
        public static let longestDelay: TimeInterval = 86_400

        /// The wait in seconds before the attempt after `attempt` (1 for the first), or nil when no attempt
        /// follows: `attempt` was the last, or `retryAfter` (seconds) is over ``maxDelay``.
        ///
        /// The back-off is `baseDelay * 2^(attempt-1)`, capped at ``maxDelay``, scaled by `0.5 + jitter / 2`
        /// so clients that failed together do not return together; then at least `retryAfter`.
        ///
        /// - Parameter jitter: a random number in `0...1`.
        public func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?, jitter: Double) -> TimeInterval? {
            guard attempt < maxAttempts else { return nil }
            if let retryAfter, retryAfter > maxDelay { return nil }
            let exponent = Double(min(max(attempt - 1, 0), 62))
            let backOff = min(maxDelay, baseDelay * pow(2, exponent)) * (0.5 + min(max(jitter, 0), 1) / 2)
            return max(backOff, retryAfter ?? 0)
        }
    }
}
