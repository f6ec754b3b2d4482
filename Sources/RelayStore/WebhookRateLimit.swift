import Foundation

/// The rule both stores apply in ``Store/takeWebhookRate(_:at:)``: a token bucket per sender (refilled at
/// `webhooksPerMinute / 60` a second up to `burst`; a new sender's is full) and a count per sender and
/// recipient for each minute of the wall clock (UNIX epoch seconds / 60).
///
/// Time is the wall clock, as every relay sharing the store reads it: a bucket's time never moves back, so
/// a relay whose clock runs behind another's refills nothing until it catches up (never more than its due).
/// Tokens are kept as MICRO-tokens (integers, 1,000,000 to a webhook), so both engines store them exactly.
package enum WebhookRateLimit {
    /// Micro-tokens to a webhook.
    package static let scale: Int64 = 1_000_000

    /// A sender's bucket as stored.
    package struct Bucket: Sendable, Equatable {
        /// Micro-tokens in the bucket at ``updatedAt``.
        package var microTokens: Int64
        /// UNIX epoch MILLISECONDS.
        package var updatedAt: Int64

        package init(microTokens: Int64, updatedAt: Int64) {
            self.microTokens = microTokens
            self.updatedAt = updatedAt
        }
    }

    /// The bucket to store and, when refused, why. A refusal leaves the stored counts alone; the bucket is
    /// then only refilled to `now`, which changes nothing a later call would compute.
    /// - Parameters:
    ///   - stored: the sender's bucket, nil when it has none (full).
    ///   - pushes: this minute's count for each of the request's recipients (0 when none), in order.
    package static func decide(
        _ request: WebhookRateRequest,
        stored: Bucket?,
        pushes: [Int],
        now: Date
    ) -> (bucket: Bucket, refusal: WebhookRateRefusal?) {
        let nowMs = EpochMilliseconds.of(now)
        let full = Int64(request.burst) * scale
        var bucket = stored ?? Bucket(microTokens: full, updatedAt: nowMs)
        // Beyond the time to refill from empty the bucket is full: capped there, the product stays small.
        let elapsed = min(max(0, nowMs - bucket.updatedAt), refillMilliseconds(request))
        let refill = elapsed * Int64(request.webhooksPerMinute) * scale / 60_000
        bucket.microTokens = min(full, bucket.microTokens + refill)
        bucket.updatedAt = max(bucket.updatedAt, nowMs)
        guard bucket.microTokens >= scale else {
            let perSecond = Double(request.webhooksPerMinute) / 60
            let missing = Double(scale - bucket.microTokens) / Double(scale)
            return (bucket, .webhooks(retryAfterSeconds: max(1, Int((missing / perSecond).rounded(.up)))))
        }
        if pushes.contains(where: { $0 >= request.pushesPerRecipientPerMinute }) {
            let seconds = nowMs / 1000
            return (bucket, .pushesPerRecipient(retryAfterSeconds: Int(60 - seconds % 60)))
        }
        bucket.microTokens -= scale
        return (bucket, nil)
    }

    /// The minute `now` falls in (UNIX epoch seconds / 60), the key of the push counts.
    package static func minute(_ now: Date) -> Int64 { EpochMilliseconds.of(now) / 60_000 }

    /// How long an idle bucket takes to refill from empty, in MILLISECONDS: a bucket not updated for that
    /// long is full and can be deleted.
    package static func refillMilliseconds(_ request: WebhookRateRequest) -> Int64 {
        Int64(request.burst) * 60_000 / Int64(max(1, request.webhooksPerMinute)) + 1
    }
}
