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

    /// Takes one write and one webhook from the sender's buckets, or, when either is empty, takes nothing.
    /// - Returns: nil when taken; else what refused it.
    /// - Throws: the store's error.
    func takeWebhook(appId: String, senderId: String, limits: Configuration.Limits) async throws -> Refusal? {
        let buckets = [Self.bucket(.writes, limits), Self.bucket(.webhooks, limits)]
        return try await taking(UserRateRequest(appId: appId, senderId: senderId, buckets: buckets))
    }

    /// Counts one push from the sender to each of `recipients` in this minute, or, when any recipient is at
    /// ``Configuration/Limits/pushesPerRecipientPerMinute``, counts nothing.
    /// - Returns: nil when counted; else what refused it.
    /// - Throws: the store's error.
    func countPushes(
        appId: String,
        senderId: String,
        recipients: [String],
        limits: Configuration.Limits
    ) async throws -> Refusal? {
        let request = UserRateRequest(
            appId: appId,
            senderId: senderId,
            buckets: [],
            recipients: recipients,
            pushesPerRecipientPerMinute: limits.pushesPerRecipientPerMinute
        )
        return try await taking(request)
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
