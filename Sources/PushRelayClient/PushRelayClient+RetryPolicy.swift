import Foundation

extension PushRelayClient {
    /// How a call is retried after a 429, a 5xx other than 501/505, or a network failure: exponential
    /// back-off with jitter, never sooner than the answer's `Retry-After`.
    public struct RetryPolicy: Sendable, Equatable {
        /// Attempts in all, the first included (at least 1). Default 5.
        public var maxAttempts: Int { didSet { maxAttempts = Self.attempts(maxAttempts) } }
        /// The wait before the second attempt, in seconds, doubling per attempt. Default 0.5.
        public var baseDelay: TimeInterval { didSet { baseDelay = Self.wait(baseDelay) } }
        /// The longest wait, in seconds, at most ``longestDelay``. A `Retry-After` longer than this ends the
        /// call with the answer's error (its ``PushRelayError/retryAfter`` set) instead of holding it.
        /// Default 30.
        public var maxDelay: TimeInterval { didSet { maxDelay = Self.wait(maxDelay) } }
        /// One attempt's timeout, in seconds (`URLRequest.timeoutInterval`); 30 for one that is not above 0.
        /// Default 30.
        public var requestTimeout: TimeInterval { didSet { requestTimeout = Self.timeout(requestTimeout) } }

        /// Each value is taken as its property says, also when set after `init`.
        public init(
            maxAttempts: Int = 5,
            baseDelay: TimeInterval = 0.5,
            maxDelay: TimeInterval = 30,
            requestTimeout: TimeInterval = 30
        ) {
            self.maxAttempts = Self.attempts(maxAttempts)
            self.baseDelay = Self.wait(baseDelay)
            self.maxDelay = Self.wait(maxDelay)
            self.requestTimeout = Self.timeout(requestTimeout)
        }

        private static func attempts(_ count: Int) -> Int { max(1, count) }
        /// From 0 to ``longestDelay`` (0 for NaN).
        private static func wait(_ seconds: TimeInterval) -> TimeInterval {
            seconds.isNaN ? 0 : min(max(0, seconds), longestDelay)
        }
        private static func timeout(_ seconds: TimeInterval) -> TimeInterval { seconds > 0 ? seconds : 30 }

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
