import Foundation

/// The `Idempotency-Key` a webhook came with, as ``Store/createNotification(_:recipients:idempotencyKey:)``
/// remembers it: whose key it is (with the notification's app id, the caller's `scope`), the key, and the
/// fingerprint of the request it first came with.
///
/// Source: draft-ietf-httpapi-idempotency-key-header, "The Idempotency-Key HTTP Header Field".
public struct IdempotencyKey: Sendable, Equatable {
    /// How long a key is remembered after its webhook was accepted. A client retries a call it got no answer
    /// to within seconds to hours (a lost connection, an app relaunched, a phone back online); a day covers
    /// that with room to spare, as Stripe-style APIs do, and bounds the store to one day of keyed webhooks.
    /// Past it the key is forgotten: the same key makes a new notification.
    public static let retention: Duration = .seconds(24 * 60 * 60)

    /// Who within the app uses the key, e.g. `backend` or `user:<userId>`: each scope has keys of its own.
    public var scope: String
    /// The key as the client sent it (unquoted), 1...255 visible ASCII characters.
    public var key: String
    /// The request's fingerprint, e.g. 32 bytes of SHA-256: a replay with another one is not the same request.
    public var requestHash: Data
    /// Another key the same request goes by, remembered beside ``key`` in the same scope with the same
    /// fingerprint: a signed webhook's, named by what it signed, so that a replay of it is answered from the
    /// first whatever `Idempotency-Key` it carries.
    public var alias: String?

    public init(scope: String, key: String, requestHash: Data, alias: String? = nil) {
        self.scope = scope
        self.key = key
        self.requestHash = requestHash
        self.alias = alias
    }

    /// ``key`` and then ``alias``, each as a key of its own: what a store looks up (the first remembered
    /// answers) and remembers (all of them).
    public var identities: [IdempotencyKey] {
        [IdempotencyKey(scope: scope, key: key, requestHash: requestHash)]
            + (alias.map { [IdempotencyKey(scope: scope, key: $0, requestHash: requestHash)] } ?? [])
    }

    /// The first answer `lookup` gives for one of ``identities``, in their order; nil when it gives none.
    public func firstAnswer<Answer>(_ lookup: (IdempotencyKey) throws -> Answer?) rethrows -> Answer? {
        for identity in identities {
            if let answer = try lookup(identity) { return answer }
        }
        return nil
    }
}
