/// What a Ditto auth webhook answers (Ditto, "Authentication Providers": `authenticate`, `userID`,
/// `expirationSeconds`; `permissions`, `userInfo` and the rest are not used), read with JSONDecoder.
struct DittoWebhookAnswer: Decodable, Sendable {
    var authenticate: Bool
    var userID: String?
    /// How long the authentication holds, in SECONDS.
    var expirationSeconds: Double?
}
