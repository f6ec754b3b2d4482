import Foundation
import RelayCore
import Synchronization

/// The per-user rate limits of ``Configuration/Limits`` that count over time: webhooks per user (a token
/// bucket) and pushes one user causes to one recipient (per minute of the monotonic clock). Counts live in
/// this process; buckets refilled to full and counts of past minutes are dropped, so memory follows the
/// users active in the last minute.
final class UserLimiter: Sendable {
    /// A user of an app. Ids are kept as their UTF-8 bytes: `String`'s hashing and `==` would make two
    /// users whose ids are canonically equivalent share a bucket (see ``RelayCore/StringProtocol/isSameId(_:)``).
    private struct User: Hashable {
        var appId: [UInt8]
        var userId: [UInt8]
        init(appId: String, userId: String) {
            self.appId = Array(appId.utf8)
            self.userId = Array(userId.utf8)
        }
    }

    /// One sender and one recipient of an app, as bytes like ``User``.
    private struct Pair: Hashable {
        var sender: User
        var recipientId: [UInt8]
        init(appId: String, senderId: String, recipientId: String) {
            sender = User(appId: appId, userId: senderId)
            self.recipientId = Array(recipientId.utf8)
        }
    }

    private struct Bucket {
        var tokens: Double
        var updated: Duration
    }

    private struct State {
        var buckets: [User: Bucket] = [:]
        /// The minute ``pushes`` counts (monotonic seconds / 60).
        var minute: Int64 = 0
        var pushes: [Pair: Int] = [:]
    }

    private let state = Mutex(State())
    private let time: any TimeSource

    init(time: any TimeSource) { self.time = time }

    /// Which limit refused a webhook, and when to try again.
    enum Refusal: Equatable {
        /// The sender's bucket is empty.
        case webhooks(retryAfterSeconds: Int)
        /// A recipient has had its pushes from the sender this minute.
        case pushesPerRecipient(retryAfterSeconds: Int)
    }

    /// Takes one webhook from the sender's bucket and counts one push from it to each of `recipients` in
    /// this minute, or, when the bucket is empty or any recipient is at
    /// ``Configuration/Limits/pushesPerRecipientPerMinute``, takes and counts nothing.
    /// - Returns: nil when taken; else what refused it.
    func takeWebhook(
        appId: String,
        senderId: String,
        recipients: [String],
        limits: Configuration.Limits
    ) -> Refusal? {
        let now = time.monotonic
        let seconds = Int64(now.components.seconds)
        let perSecond = Double(limits.webhooksPerMinute) / 60
        let burst = Double(limits.webhookBurst)
        return state.withLock { state in
            if state.buckets.count > 100_000 {
                Self.dropFullBuckets(&state, appId: appId, now: now, perSecond: perSecond, burst: burst)
            }
            let key = User(appId: appId, userId: senderId)
            var bucket = state.buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated).timeInterval * perSecond)
            bucket.updated = now
            state.buckets[key] = bucket
            guard bucket.tokens >= 1 else {
                return .webhooks(retryAfterSeconds: max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))))
            }
            if seconds / 60 != state.minute {
                state.minute = seconds / 60
                state.pushes.removeAll(keepingCapacity: true)
            }
            let pairs = recipients.map { Pair(appId: appId, senderId: senderId, recipientId: $0) }
            if pairs.contains(where: { state.pushes[$0, default: 0] >= limits.pushesPerRecipientPerMinute }) {
                return .pushesPerRecipient(retryAfterSeconds: Int(60 - seconds % 60))
            }
            state.buckets[key]?.tokens -= 1
            for pair in pairs { state.pushes[pair, default: 0] += 1 }
            return nil
        }
    }

    /// Forgets the app's buckets that have refilled: a missing bucket is a full one.
    private static func dropFullBuckets(
        _ state: inout State,
        appId: String,
        now: Duration,
        perSecond: Double,
        burst: Double
    ) {
        let app = Array(appId.utf8)
        state.buckets = state.buckets.filter { key, bucket in
            key.appId != app || bucket.tokens + (now - bucket.updated).timeInterval * perSecond < burst
        }
    }
}
