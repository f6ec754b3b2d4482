import RelayCore
import Synchronization

/// Counts each client's credential checks (user credentials no cache answered, and API keys or ingest secrets
/// that matched no app), per address and per address range
/// (``RelayCore/IPAddress/enclosingPrefix(ipv4Length:ipv6Length:)``: the IPv4 /24 or IPv6 /64), as
/// ``RelayCore/Configuration/HTTP/CredentialFailures`` sets the limits.
///
/// Each address and range has a bucket: a check takes room in it while in flight, keeps it when it fails
/// and gives it back only when it succeeds. Failures drain at the limit's rate. A check that finds either
/// bucket full is refused before anything is asked, with the seconds until there is room.
///
/// Buckets live in a table of at most `maxTracked` entries, so memory stays bounded whatever addresses call.
/// A full table forgets, of its least recently used buckets, one that holds nothing (``evictionCandidates``),
/// else the least recently used: a forgotten bucket starts empty again, so a client that makes more new
/// entries than the table holds before the others' failures drain can still have them forgotten. The counts
/// are this process's own: relays sharing a store do not share them.
public final class CredentialCheckLimiter: Sendable {
    /// One admitted check: hand it back to ``end(_:failed:)`` when the check is over.
    public struct Ticket: Sendable {
        fileprivate let buckets: [(key: Key, id: UInt64)]
    }

    /// Whether a check may go ahead.
    public enum Admission: Sendable {
        case admitted(Ticket)
        /// Either bucket is full: try again after this many SECONDS (at least 1).
        case refused(retryAfterSeconds: Int)
    }

    /// An address (its full length) or a range, as a compact key: no heap storage per entry. A range as
    /// wide as an address (`http.ipv4PrefixLength` 32, `ipv6PrefixLength` 128) is a key apart from the
    /// address's, so a check is counted once in each bucket.
    fileprivate struct Key: Hashable, Sendable {
        var high: UInt64
        var low: UInt64
        var length: UInt8
        var isIPv4: Bool
        var isRange: Bool

        init(_ network: IPNetwork, isRange: Bool) {
            self.isRange = isRange
            let bytes = network.address.bytes
            let value = { (slice: ArraySlice<UInt8>) in slice.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            high = bytes.count == 16 ? value(bytes[0..<8]) : 0
            low = bytes.count == 16 ? value(bytes[8..<16]) : value(bytes[...])
            length = UInt8(network.prefixLength)
            isIPv4 = network.address.isIPv4
        }
    }

    private struct Bucket {
        /// Failed checks not yet drained (fractional while draining).
        var level: Double
        var inFlight: Int
        /// When ``level`` was last drained (a monotonic reading).
        var drained: Duration
        /// Tells this bucket from one made for the same key after this one was forgotten.
        let id: UInt64

        /// Whether the bucket holds nothing at `now`: no check in flight, every failure drained. Forgetting it
        /// changes nothing.
        func isIdle(now: Duration, perSecond: Double) -> Bool {
            var drained = self
            drained.drain(now: now, perSecond: perSecond)
            return inFlight == 0 && drained.level == 0
        }

        mutating func drain(now: Duration, perSecond: Double) {
            let elapsed = max(0, (now - drained).timeInterval)
            level = max(0, level - elapsed * perSecond)
            drained = now
        }
    }

    private struct Limit {
        var burst: Double
        var perSecond: Double
    }

    private struct State {
        var buckets: LRUTable<Key, Bucket>
        var nextId: UInt64 = 0
    }

    /// How many of the least recently used buckets a full table looks at for one that holds nothing before it
    /// forgets the oldest anyway: a bucket that still counts failures or checks in flight outlives churn.
    static let evictionCandidates = 8

    private let addressLimit: Limit
    private let prefixLimit: Limit
    private let ipv4PrefixLength: Int
    private let ipv6PrefixLength: Int
    private let time: any TimeSource
    private let state: Mutex<State>

    /// Ranges are `http.ipv4PrefixLength` / `http.ipv6PrefixLength` wide (defaults /24 and /64), the same
    /// ranges the connection caps count.
    public init(
        settings: Configuration.HTTP.CredentialFailures,
        ipv4PrefixLength: Int = 24,
        ipv6PrefixLength: Int = 64,
        time: any TimeSource = SystemTimeSource()
    ) {
        self.ipv4PrefixLength = ipv4PrefixLength
        self.ipv6PrefixLength = ipv6PrefixLength
        addressLimit = Limit(
            burst: Double(settings.perAddressBurst),
            perSecond: Double(settings.perAddressPerMinute) / 60
        )
        prefixLimit = Limit(burst: Double(settings.perPrefixBurst), perSecond: Double(settings.perPrefixPerMinute) / 60)
        self.time = time
        state = Mutex(State(buckets: LRUTable(capacity: max(2, settings.maxTracked))))
    }

    /// Addresses and ranges counted now.
    public var trackedCount: Int { state.withLock { $0.buckets.count } }

    /// The range `client` (a numeric address; anything else is `::`) is counted in: its /24 or /64.
    public func range(of client: String) -> IPNetwork {
        (IPAddress(client) ?? IPAddress("::")!).enclosingPrefix(
            ipv4Length: ipv4PrefixLength,
            ipv6Length: ipv6PrefixLength
        )
    }

    /// Admits one check from `client` (a numeric address; anything else counts as the unspecified address
    /// `::`), taking room in its range's and its address's buckets, or refuses it, taking nothing.
    ///
    /// The range's bucket is asked first, and a check it refuses makes no entry for its address: addresses
    /// churned within one range (an IPv6 /64 holds 2^64 of them) add entries only as fast as the range
    /// admits checks.
    public func begin(client: String) -> Admission {
        let address = IPAddress(client) ?? IPAddress("::")!
        let keys = [
            Key(range(of: client), isRange: true),
            Key(IPNetwork(address: address, prefixLength: address.bytes.count * 8), isRange: false),
        ]
        let now = time.monotonic
        return state.withLock { state in
            var wait = 0.0
            var taken: [(key: Key, id: UInt64)] = []
            for key in keys {
                let limit = self.limit(key)
                // Room past the burst this check would need, once the bucket has drained to now.
                let overflow = { (bucket: inout Bucket) in
                    bucket.drain(now: now, perSecond: limit.perSecond)
                    return bucket.level + Double(bucket.inFlight) + 1 - limit.burst
                }
                guard wait == 0 else {
                    // Refused already: a bucket that exists still says how long to wait; none is made.
                    if let over = state.buckets.updateIfPresent(key, overflow), over > 0 {
                        wait = max(wait, over / limit.perSecond)
                    }
                    continue
                }
                let id = state.nextId
                state.nextId += 1
                let (over, bucketId) = state.buckets.update(
                    key,
                    make: { Bucket(level: 0, inFlight: 0, drained: now, id: id) },
                    isIdle: { key, bucket in bucket.isIdle(now: now, perSecond: self.limit(key).perSecond) },
                    candidates: Self.evictionCandidates
                ) { bucket in (overflow(&bucket), bucket.id) }
                if over > 0 { wait = over / limit.perSecond }
                taken.append((key, bucketId))
            }
            // Whole milliseconds first, so 1.0000001 s of floating-point error is not a second more.
            let milliseconds = Int((wait * 1000).rounded())
            guard wait == 0 else { return .refused(retryAfterSeconds: max(1, (milliseconds + 999) / 1000)) }
            for (key, id) in taken {
                state.buckets.updateIfPresent(key) { bucket in if bucket.id == id { bucket.inFlight += 1 } }
            }
            return .admitted(Ticket(buckets: taken))
        }
    }

    /// The limit of `key`'s bucket: a range's or an address's.
    private func limit(_ key: Key) -> Limit { key.isRange ? prefixLimit : addressLimit }

    /// Ends an admitted check: its room is given back, and kept as a failure when `failed`. A bucket
    /// forgotten meanwhile is left alone.
    public func end(_ ticket: Ticket, failed: Bool) {
        let now = time.monotonic
        state.withLock { state in
            for (key, id) in ticket.buckets {
                let limit = self.limit(key)
                state.buckets.updateIfPresent(key) { bucket in
                    guard bucket.id == id else { return }
                    bucket.drain(now: now, perSecond: limit.perSecond)
                    bucket.inFlight = max(0, bucket.inFlight - 1)
                    if failed { bucket.level += 1 }
                }
            }
        }
    }
}
