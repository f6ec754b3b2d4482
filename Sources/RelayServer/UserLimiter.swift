import Foundation
import RelayCore
import RelayStore

/// The per-user rate limits of ``Configuration/Limits`` that count over time: webhooks per user (a token
/// bucket) and pushes one user causes to one recipient (per minute). The counts live in the store
/// (``RelayStore/Store/takeWebhookRate(_:at:)``, the rule in ``RelayStore/WebhookRateLimit``), so relays
/// sharing a database share one budget; time is the wall clock, which every relay reads alike. Ids count as
/// their UTF-8 bytes: two users whose ids are canonically equivalent but spelled differently have a
/// bucket each (see ``RelayCore/StringProtocol/isSameId(_:)``).
struct UserLimiter: Sendable {
    typealias Refusal = WebhookRateRefusal

    let store: any Store
    let time: any TimeSource

    /// Takes one webhook from the sender's bucket and counts one push from it to each of `recipients` in
    /// this minute, or, when the bucket is empty or any recipient is at
    /// ``Configuration/Limits/pushesPerRecipientPerMinute``, takes and counts nothing.
    /// - Returns: nil when taken; else what refused it.
    /// - Throws: the store's error.
    func takeWebhook(
        appId: String,
        senderId: String,
        recipients: [String],
        limits: Configuration.Limits
    ) async throws -> Refusal? {
        let request = WebhookRateRequest(
            appId: appId,
            senderId: senderId,
            recipients: recipients,
            webhooksPerMinute: limits.webhooksPerMinute,
            burst: limits.webhookBurst,
            pushesPerRecipientPerMinute: limits.pushesPerRecipientPerMinute
        )
        return try await store.takeWebhookRate(request, at: time.now)
    }
}
