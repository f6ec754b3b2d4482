import RelayAuth
import RelayCore
import Testing

/// The per-address and per-range count of credential checks, on a manual clock.
@Suite struct CredentialCheckLimiterTests {
    static func limiter(
        perAddressBurst: Int = 3,
        perAddressPerMinute: Int = 6,
        perPrefixBurst: Int = 100,
        perPrefixPerMinute: Int = 60,
        maxTracked: Int = 1000,
        time: ManualTimeSource = ManualTimeSource()
    ) -> CredentialCheckLimiter {
        CredentialCheckLimiter(
            settings: .init(
                perAddressBurst: perAddressBurst,
                perAddressPerMinute: perAddressPerMinute,
                perPrefixBurst: perPrefixBurst,
                perPrefixPerMinute: perPrefixPerMinute,
                maxTracked: maxTracked
            ),
            time: time
        )
    }

    /// Begins a check from `client` and ends it at once as `failed`; whether it was admitted.
    @discardableResult
    static func check(_ limiter: CredentialCheckLimiter, _ client: String, failed: Bool = true) -> Bool {
        guard case .admitted(let ticket) = limiter.begin(client: client) else { return false }
        limiter.end(ticket, failed: failed)
        return true
    }

    static func retryAfter(_ admission: CredentialCheckLimiter.Admission) -> Int? {
        if case .refused(let seconds) = admission { seconds } else { nil }
    }

    @Test func successesAreFree() {
        let limiter = Self.limiter()
        for _ in 0..<100 { #expect(Self.check(limiter, "192.0.2.1", failed: false)) }
        #expect(Self.check(limiter, "192.0.2.1"))
    }

    @Test func failuresFillTheAddressBucketWhichDrainsOverTime() {
        let time = ManualTimeSource()
        let limiter = Self.limiter(perAddressBurst: 3, perAddressPerMinute: 6, time: time)
        for _ in 0..<3 { #expect(Self.check(limiter, "192.0.2.1")) }
        // Full: one failure drains every 10 s (6 a minute).
        #expect(Self.retryAfter(limiter.begin(client: "192.0.2.1")) == 10)
        #expect(Self.check(limiter, "192.0.2.2"), "another address has a bucket of its own")
        time.advance(by: .seconds(9))
        #expect(Self.retryAfter(limiter.begin(client: "192.0.2.1")) == 1)
        time.advance(by: .seconds(1))
        #expect(Self.check(limiter, "192.0.2.1"))
        #expect(!Self.check(limiter, "192.0.2.1"))
    }

    /// A range as wide as an address (/32, /128) has a bucket of its own: each failure counts once in the
    /// address's and once in the range's, so the address's burst of 10 holds.
    @Test(arguments: [("192.0.2.1", 32, 64), ("2001:db8::1", 24, 128)])
    func aRangeAsWideAsAnAddressCountsApart(client: String, ipv4: Int, ipv6: Int) {
        let limiter = CredentialCheckLimiter(
            settings: .init(
                perAddressBurst: 10,
                perAddressPerMinute: 6,
                perPrefixBurst: 16,
                perPrefixPerMinute: 60,
                maxTracked: 1000
            ),
            ipv4PrefixLength: ipv4,
            ipv6PrefixLength: ipv6,
            time: ManualTimeSource()
        )
        for _ in 0..<10 { #expect(Self.check(limiter, client)) }
        #expect(!Self.check(limiter, client))
        #expect(limiter.trackedCount == 2)
    }

    @Test func checksInFlightTakeRoomUntilTheyEnd() throws {
        let limiter = Self.limiter(perAddressBurst: 2)
        guard case .admitted(let first) = limiter.begin(client: "2001:db8::1"),
            case .admitted(let second) = limiter.begin(client: "2001:db8::1")
        else {
            Issue.record("two checks fit a bucket of 2")
            return
        }
        #expect(Self.retryAfter(limiter.begin(client: "2001:db8::1")) != nil)
        limiter.end(first, failed: false)
        #expect(Self.check(limiter, "2001:db8::1", failed: false), "a success gives its room back")
        limiter.end(second, failed: true)
        #expect(Self.check(limiter, "2001:db8::1"), "one failure leaves room for one more")
        #expect(!Self.check(limiter, "2001:db8::1"))
    }

    @Test func aRangeIsCountedOverAllItsAddresses() {
        let limiter = Self.limiter(perAddressBurst: 100, perPrefixBurst: 5)
        for host in 1...5 { #expect(Self.check(limiter, "198.51.100.\(host)")) }
        #expect(!Self.check(limiter, "198.51.100.200"), "a new address of the same /24")
        #expect(Self.check(limiter, "198.51.101.1"), "the next /24")
        // IPv6: the /64.
        for host in 1...5 { #expect(Self.check(limiter, "2001:db8:0:7::\(host)")) }
        #expect(!Self.check(limiter, "2001:db8:0:7:ffff:ffff:ffff:ffff"))
        #expect(Self.check(limiter, "2001:db8:0:8::1"))
        // An IPv4-mapped IPv6 address is the IPv4 address.
        #expect(!Self.check(limiter, "::ffff:198.51.100.9"))
    }

    @Test func theTableForgetsTheLeastRecentlyUsedAndStaysBounded() {
        let limiter = Self.limiter(perAddressBurst: 1, maxTracked: 1000)
        guard case .admitted(let stale) = limiter.begin(client: "203.0.113.1") else {
            Issue.record("a first check is admitted")
            return
        }
        #expect(!Self.check(limiter, "203.0.113.1"), "its bucket is full while the check runs")
        // 5,000 addresses in as many /24s: two entries each, far more than the table holds.
        for index in 0..<5000 {
            Self.check(limiter, "10.\(index / 256).\(index % 256).1")
            #expect(limiter.trackedCount <= 1000)
        }
        #expect(limiter.trackedCount == 1000)
        // The first address was forgotten: it starts afresh, and the forgotten check's end changes nothing.
        guard case .admitted(let fresh) = limiter.begin(client: "203.0.113.1") else {
            Issue.record("a forgotten address starts with an empty bucket")
            return
        }
        limiter.end(stale, failed: false)
        #expect(!Self.check(limiter, "203.0.113.1"), "the fresh check still holds the bucket")
        limiter.end(fresh, failed: false)
        #expect(Self.check(limiter, "203.0.113.1", failed: false))
    }

    /// A check its range refuses makes no entry for its address: one client churning the addresses of its
    /// /64 fills no more of the table than its range's burst, and another client's full bucket stays.
    @Test func addressesChurnedInOneRangePushNoOtherBucketOut() {
        let limiter = Self.limiter(perAddressBurst: 1, perPrefixBurst: 16, maxTracked: 100)
        guard case .admitted(let inFlight) = limiter.begin(client: "198.51.100.1") else {
            Issue.record("a first check is admitted")
            return
        }
        for host in 1...5000 { Self.check(limiter, "2001:db8:0:1::\(String(host, radix: 16))") }
        // The victim's address and range, the churning range and the 16 addresses it was admitted for.
        #expect(limiter.trackedCount == 2 + 1 + 16)
        #expect(!Self.check(limiter, "198.51.100.1"), "the check in flight still holds the bucket")
        limiter.end(inFlight, failed: true)
        #expect(!Self.check(limiter, "198.51.100.1"), "its failure is still counted")
    }

    /// A full table forgets a bucket that holds nothing before one that still counts: churn through many
    /// ranges whose checks succeed leaves a failing client's full bucket.
    @Test func aFullTableForgetsIdleBucketsFirst() {
        let limiter = Self.limiter(perAddressBurst: 1, maxTracked: 100)
        #expect(Self.check(limiter, "198.51.100.1"))
        for index in 0..<5000 { Self.check(limiter, "10.\(index / 256).\(index % 256).1", failed: false) }
        #expect(limiter.trackedCount <= 100)
        #expect(!Self.check(limiter, "198.51.100.1"), "its failure is still counted")
    }

    /// A check its range refuses waits for its address's bucket too when that one is fuller.
    @Test func aRefusalWaitsForTheFullerOfTheTwoBuckets() {
        let limiter = Self.limiter(
            perAddressBurst: 1,
            perAddressPerMinute: 6,
            perPrefixBurst: 2,
            perPrefixPerMinute: 60
        )
        #expect(Self.check(limiter, "198.51.100.1"))
        #expect(Self.check(limiter, "198.51.100.2"))
        // The range is full (a second to drain one), and so is the first address (ten seconds).
        #expect(Self.retryAfter(limiter.begin(client: "198.51.100.3")) == 1)
        #expect(Self.retryAfter(limiter.begin(client: "198.51.100.1")) == 10)
    }

    @Test func anAddressThatIsNotOneCountsAsTheUnspecifiedAddress() {
        let limiter = Self.limiter(perAddressBurst: 1)
        #expect(Self.check(limiter, ""))
        #expect(!Self.check(limiter, "not an address"))
        #expect(!Self.check(limiter, "::"))
    }
}
