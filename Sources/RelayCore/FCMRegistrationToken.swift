/// An FCM registration token: the opaque string the Firebase SDK gave the app, held exactly as given.
///
/// Tokens are letters, digits, `-`, `_` and `:`, typically 140 to 200 characters (Firebase, "Manage FCM
/// registration tokens"); this type takes any of ``lengthRange`` characters of that alphabet. Case matters:
/// a token is never case-folded, trimmed or otherwise repaired, since any change makes it another token.
public struct FCMRegistrationToken: Hashable, Sendable, CustomStringConvertible {
    /// The token as the app sent it.
    public let value: String

    /// Bounds on the token's length in characters (each one byte: the alphabet is ASCII).
    public static let lengthRange = 32...1024

    /// Why a string is not a registration token.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Takes a token as the app sent it.
    /// - Throws: ``ParseError`` naming the first problem: empty, a character outside the alphabet
    ///   (whitespace included, shown escaped), or a length outside ``lengthRange``.
    public init(parsing raw: String) throws(ParseError) {
        guard !raw.isEmpty else { throw ParseError(description: "FCM registration token is empty") }
        // Bytes first, scalars only to name a bad one: this runs once a push (each claimed row's token).
        if !Self.isTokenText(raw.utf8),
            let bad = raw.unicodeScalars.first(where: { !$0.isASCII || !Self.isTokenByte(UInt8($0.value)) })
        {
            throw ParseError(
                description:
                    "FCM registration token may hold only letters, digits, '-', '_' and ':'; found '\(bad.escaped(asASCII: true))'"
            )
        }
        let length = raw.utf8.count
        guard Self.lengthRange.contains(length) else {
            throw ParseError(
                description:
                    "FCM registration token must be \(Self.lengthRange.lowerBound) to \(Self.lengthRange.upperBound) characters; it is \(length)"
            )
        }
        value = raw
    }

    /// Whether every byte of `bytes` is of the alphabet: a loop calling ``isTokenByte(_:)`` directly, which
    /// the compiler inlines; `allSatisfy(isTokenByte)` calls it through a thunk per byte.
    private static func isTokenText(_ bytes: String.UTF8View) -> Bool {
        for byte in bytes where !isTokenByte(byte) { return false }
        return true
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"):
            true
        default: false
        }
    }

    /// The last 8 characters: the only part of a token that may appear in logs and error messages.
    public var suffix: String { String(value.suffix(8)) }

    /// Redacted: `…` and ``suffix``. Use ``value`` deliberately where the full token is needed.
    public var description: String { "…" + suffix }
}
