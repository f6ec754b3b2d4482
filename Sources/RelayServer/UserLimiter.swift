import Foundation
import RelayCore
import RelayStore

/// The per-user rate limits of ``Configuration/Limits`` that count over time: writes of every kind, reads
/// and webhooks per user (token buckets), and pushes one user causes to one recipient (per minute). The
/// counts live in the store (``RelayStore/Store/takeUserRate(_:at:)``, the rule in
/// ``RelayStore/UserRateLimit``), so relays sharing a database share one budget; time is the wall clock,
/// which every relay reads alike. Ids count as their UTF-8 bytes: two users whose ids are canonically
/// equivalent but spelled differently have buckets of their own (see ``RelayCore/StringProtocol/isSameId(_:)``).
struct UserLimiter: Sendable {
    typealias Refusal = UserRateRefusal
    typealias Bucket = UserRateRequest.Bucket

    let store: any Store
    let time: any TimeSource
    /// A user's takes in this process, one at a time: on PostgreSQL a take holds the user's buckets to its
    /// end, and the takes queued behind it would each hold a store connection meanwhile.
    private let turns = KeyedTurns()

    /// Takes `request` in its user's turn.
    private func taking(_ request: UserRateRequest) async throws -> Refusal? {
        try await turns.run(request.appId + "\u{0}" + request.senderId) {
            try await store.takeUserRate(request, at: time.now)
        }
    }

    /// Takes one token from the user's bucket `name` (a write or a read), or, when it is empty, takes nothing.
    /// - Returns: nil when taken; else what refused it.
    /// - Throws: the store's error.
    func take(
        _ name: Bucket.Name,
        appId: String,
        userId: String,
        limits: Configuration.Limits
    ) async throws -> Refusal? {
        let request = UserRateRequest(appId: appId, senderId: userId, buckets: [Self.bucket(name, limits)])
        return try await taking(request)
    }

    /// Takes one write and one webhook from the sender's buckets and counts one push from it to each of
    /// `recipients` in this minute, or, when a bucket is empty or any recipient is at
    /// ``Configuration/Limits/pushesPerRecipientPerMinute``, takes and counts nothing.
    /// - Returns: nil when taken; else what refused it.
    /// - Throws: the store's error.
    func takeWebhook(
        appId: String,
        senderId: String,
        recipients: [String],
        limits: Configuration.Limits
    ) async throws -> Refusal? {
        let request = UserRateRequest(
            appId: appId,
            senderId: senderId,
            buckets: Self.webhookBuckets(limits),
            recipients: recipients,
            pushesPerRecipientPerMinute: limits.pushesPerRecipientPerMinute
        )
        return try await taking(request)
    }

    /// Whether the sender's write and webhook buckets would give a webhook their tokens now, taking nothing.
    /// - Returns: nil when they would; else what refuses it.
    /// - Throws: the store's error.
    func checkWebhook(appId: String, senderId: String, limits: Configuration.Limits) async throws -> Refusal? {
        var request = UserRateRequest(
            appId: appId,
            senderId: senderId,
            buckets: Self.webhookBuckets(limits)
        )
        request.takes = false
        return try await store.takeUserRate(request, at: time.now)
    }

    /// The buckets a webhook takes from: a write and a webhook.
    private static func webhookBuckets(_ limits: Configuration.Limits) -> [Bucket] {
        [bucket(.writes, limits), bucket(.webhooks, limits)]
    }

    /// The bucket `name` as `limits` sets it: its rate and burst.
    private static func bucket(_ name: Bucket.Name, _ limits: Configuration.Limits) -> Bucket {
        switch name {
        case .writes: .init(.writes, perMinute: limits.writesPerMinute, burst: limits.writeBurst)
        case .webhooks: .init(.webhooks, perMinute: limits.webhooksPerMinute, burst: limits.webhookBurst)
        case .reads: .init(.reads, perMinute: limits.readsPerMinute, burst: limits.readBurst)
        }
    }
}
