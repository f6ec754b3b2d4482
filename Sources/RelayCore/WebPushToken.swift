/// A browser's push subscription as a device token: its identity, `web-` and the base64url (no padding)
/// SHA-256 of the subscription's endpoint, and the subscription itself when it is known.
///
/// The identity is what DELETE, `senderDeviceToken`, dead tokens, feedback and logs name; the subscription
/// (`{"endpoint", "keys": {"p256dh", "auth"}}` as JSON, checked by WebPushCore when the device registers) is
/// what the transport sends to, stored beside the identity and never shown. A token named by a path or a
/// field has only its identity. Two tokens are equal when their identities are.
public struct WebPushToken: Hashable, Sendable, CustomStringConvertible {
    /// `web-` and 43 base64url characters.
    public let identity: String
    /// The subscription's JSON; nil for a token known only by its identity.
    public let subscription: String?

    /// The prefix of every web device token.
    public static let prefix = "web-"
    /// Characters after ``prefix``: a SHA-256 in base64url without padding.
    public static let digestLength = 43

    /// Why a string is not a web device token.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// A token known only by its identity, as a path or a field names it.
    /// - Throws: ``ParseError`` when `raw` is not `web-` and 43 base64url characters.
    public init(parsing raw: String) throws(ParseError) {
        let digest = raw.utf8.dropFirst(Self.prefix.utf8.count)
        guard raw.hasPrefix(Self.prefix), digest.count == Self.digestLength,
            digest.allSatisfy({ Self.isBase64URL($0) })
        else {
            throw ParseError(
                description: "web device token must be '\(Self.prefix)' and \(Self.digestLength) base64url characters"
            )
        }
        identity = raw
        subscription = nil
    }

    /// A registered subscription: `identity` as WebPushCore derived it from `subscription`'s endpoint.
    /// - Throws: ``ParseError`` when `identity` is not a web device token.
    public init(identity: String, subscription: String) throws(ParseError) {
        self.identity = try Self(parsing: identity).identity
        self.subscription = subscription
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.identity == rhs.identity }

    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }

    /// The identity: it reveals nothing of the endpoint, which is a capability URL.
    public var description: String { identity }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
