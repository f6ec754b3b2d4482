extension Configuration.HTTP {
    /// How many credential checks a client may have going wrong: the user credentials (`Authorization:
    /// Bearer` with `X-PushRelay-App`) that no cache answered, and the API keys and Ditto ingest secrets that
    /// matched no app (one that matches, sent without `X-PushRelay-App`, is never refused), counted per
    /// client address (``http.trustedProxies`` resolve it) and per address range (the IPv4 /24 or IPv6 /64
    /// holding it) while in flight and after they failed. A check the cache accepts is free, and so is one
    /// that succeeds. Each count is a bucket of ``perAddressBurst`` (or ``perPrefixBurst``) checks draining
    /// at ``perAddressPerMinute`` (or ``perPrefixPerMinute``); a check that would overflow either is answered
    /// 429 `rate_limited` with `Retry-After` before any auth webhook or JWKS URL is asked. In flight, a range
    /// holds at most ``perPrefixBurst`` of an auth webhook's calls. Counted in each relay's memory: N relays
    /// behind one balancer allow N times as much.
    public struct CredentialFailures: Codable, Sendable, Equatable {
        /// Checks one address may have in flight or failed at once.
        public var perAddressBurst = 10
        /// Failed checks one address is forgiven per MINUTE.
        public var perAddressPerMinute = 10
        /// Checks one /24 or /64 may have in flight or failed at once.
        public var perPrefixBurst = 16
        /// Failed checks one /24 or /64 is forgiven per MINUTE.
        public var perPrefixPerMinute = 60
        /// Addresses and ranges counted at most, the least recently seen forgotten first: about 250 bytes each
        /// (25 MB at the default, once that many were seen).
        public var maxTracked = 100_000
        /// What ``maxTracked`` may be.
        public static let maxTrackedRange = 1000...10_000_000

        public init(
            perAddressBurst: Int = 10,
            perAddressPerMinute: Int = 10,
            perPrefixBurst: Int = 16,
            perPrefixPerMinute: Int = 60,
            maxTracked: Int = 100_000
        ) {
            self.perAddressBurst = perAddressBurst
            self.perAddressPerMinute = perAddressPerMinute
            self.perPrefixBurst = perPrefixBurst
            self.perPrefixPerMinute = perPrefixPerMinute
            self.maxTracked = maxTracked
        }

        /// Every problem, each starting with its key path.
        func problems() -> [String] {
            let path = "http.credentialFailures"
            let counts: [(String, Int)] = [
                ("perAddressBurst", perAddressBurst), ("perAddressPerMinute", perAddressPerMinute),
                ("perPrefixBurst", perPrefixBurst), ("perPrefixPerMinute", perPrefixPerMinute),
            ]
            var problems = counts.filter { $0.1 <= 0 }.map { "\(path).\($0.0): must be positive" }
            if !Self.maxTrackedRange.contains(maxTracked) {
                problems.append("\(path).maxTracked: must be \(Self.maxTrackedRange) (memory kept for each)")
            }
            return problems
        }
    }
}
