import Foundation

/// The rule both stores apply in ``Store/takeUserRate(_:at:)``: token buckets per user (each refilled at
/// `perMinute / 60` a second up to `burst`; a new user's are full) and a count per sender and recipient for
/// each minute of the wall clock (UNIX epoch seconds / 60).
///
/// Time is the wall clock, as every relay sharing the store reads it: a bucket's time never moves back, so
/// a relay whose clock runs behind another's refills nothing until it catches up (never more than its due).
/// Tokens are kept as MICRO-tokens (integers, 1,000,000 to a write), so both engines store them exactly.
package enum UserRateLimit {
    /// Micro-tokens to a write.
    package static let scale: Int64 = 1_000_000

    /// A bucket as stored.
    package struct Bucket: Sendable, Equatable {
        /// Micro-tokens in the bucket at ``updatedAt``.
        package var microTokens: Int64
        /// UNIX epoch MILLISECONDS.
        package var updatedAt: Int64

        package init(microTokens: Int64, updatedAt: Int64) {
            self.microTokens = microTokens
            self.updatedAt = updatedAt
        }

        /// The columns ``init(row:)`` reads, in its order, of a `rate_buckets` row.
        package static let columns = "micro_tokens, updated_at"

        /// A bucket from a row that starts with ``columns``.
        package init(row: some StoredRow) throws {
            self.init(microTokens: try row.int64(0), updatedAt: try row.int64(1))
        }
    }

    /// The buckets to store (one per ``UserRateRequest/buckets``, in order) and, when refused, why: the
    /// first empty bucket, else the first recipient at its count. A refusal takes no token and the stores
    /// keep none of its buckets' refill to `now` (a later call computes it again): a refused flood changes
    /// no bucket (on PostgreSQL the row lock taken to read them still writes a row version).
    /// - Parameters:
    ///   - stored: each of the request's buckets as stored, nil when it has none (full).
    ///   - pushes: this minute's count for each of the request's recipients (0 when none), in order.
    package static func decide(
        _ request: UserRateRequest,
        stored: [Bucket?],
        pushes: [Int],
        now: Date
    ) -> (buckets: [Bucket], refusal: UserRateRefusal?) {
        let nowMs = EpochMilliseconds.of(now)
        var buckets: [Bucket] = []
        var refusal: UserRateRefusal?
        for (rule, stored) in zip(request.buckets, stored) {
            let full = Int64(rule.burst) * scale
            var bucket = stored ?? Bucket(microTokens: full, updatedAt: nowMs)
            // Beyond the time to refill from empty the bucket is full: capped there, the product stays small.
            let elapsed = min(max(0, nowMs - bucket.updatedAt), refillMilliseconds(rule))
            let refill = elapsed * Int64(rule.perMinute) * scale / 60_000
            bucket.microTokens = min(full, bucket.microTokens + refill)
            bucket.updatedAt = max(bucket.updatedAt, nowMs)
            if refusal == nil, bucket.microTokens < scale {
                let perSecond = Double(rule.perMinute) / 60
                let missing = Double(scale - bucket.microTokens) / Double(scale)
                let wait = max(1, Int((missing / perSecond).rounded(.up)))
                refusal = UserRateRefusal(rule.name, retryAfterSeconds: wait)
            }
            buckets.append(bucket)
        }
        if refusal == nil, pushes.contains(where: { $0 >= request.pushesPerRecipientPerMinute }) {
            let seconds = nowMs / 1000
            refusal = .pushesPerRecipient(retryAfterSeconds: Int(60 - seconds % 60))
        }
        guard refusal == nil else { return (buckets, refusal) }
        for index in buckets.indices { buckets[index].microTokens -= scale }
        return (buckets, nil)
    }

    /// The minute `now` falls in (UNIX epoch seconds / 60), the key of the push counts.
    package static func minute(_ now: Date) -> Int64 { EpochMilliseconds.of(now) / 60_000 }

    /// How long an idle bucket takes to refill from empty, in MILLISECONDS: a bucket not updated for that
    /// long is full and can be deleted.
    package static func refillMilliseconds(_ rule: UserRateRequest.Bucket) -> Int64 {
        Int64(rule.burst) * 60_000 / Int64(max(1, rule.perMinute)) + 1
    }
}
