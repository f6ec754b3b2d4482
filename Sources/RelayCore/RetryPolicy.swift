/// How often and how far apart a delivery is tried again: exponential back-off with jitter.
public struct RetryPolicy: Sendable, Equatable, Codable {
    /// Attempts in all, the first included; at least 1.
    public var maxAttempts: Int
    /// The delay after the first failure, in MILLISECONDS; doubled for each further failure.
    public var baseDelayMilliseconds: Int
    /// No delay is longer than this, in MILLISECONDS.
    public var maxDelayMilliseconds: Int

    public init(maxAttempts: Int = 8, baseDelayMilliseconds: Int = 1000, maxDelayMilliseconds: Int = 300_000) {
        self.maxAttempts = maxAttempts
        self.baseDelayMilliseconds = baseDelayMilliseconds
        self.maxDelayMilliseconds = maxDelayMilliseconds
    }

    /// The wait after `failures` failed attempts (1 = the first failure): half of the capped exponential
    /// delay plus a random part up to the other half ("equal jitter"), so retries of many devices spread out.
    /// - Parameter random: a value in 0..<1 (injected so tests are exact).
    public func delay(afterFailures failures: Int, random: Double) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let capped = min(Double(baseDelayMilliseconds) * Double(1 << exponent), Double(maxDelayMilliseconds))
        let jittered = capped / 2 + capped / 2 * min(max(random, 0), 1)
        return .milliseconds(Int64(jittered.rounded()))
    }
}
