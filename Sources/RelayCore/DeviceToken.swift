/// An APNs device token: the bytes Apple gave the app, held as lowercase hex.
///
/// Apple ("Registering your app with APNs"): tokens are "of variable length. Do not hard-code their size."
/// 32 bytes (64 hex characters) today; this type accepts any even-length hex of 8...256 bytes.
///
/// A registered token knows the APNs environment it was registered for (a development build's token works
/// only in sandbox) and the topics APNs refused it for; a token named by a path or a field knows neither.
/// Two tokens are equal when their hex is.
public struct DeviceToken: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Lowercase hex, two characters a byte.
    public let hex: String
    /// The APNs environment the token was registered for (picks the APNs host); nil when not known.
    public var environment: APNsEnvironment?
    /// The apns-topics APNs refused this token for (DeviceTokenNotForTopic): nothing more is sent to it as
    /// them. Cleared by the next registration; empty when none, or not known.
    public var unlinkedTopics: [String] = []

    /// Bounds on the token's length in bytes.
    public static let byteLengthRange = 8...256
    /// The longest text read as a token, in BYTES: the hex of the longest one with as much again of white
    /// space and brackets; a longer text is refused unread.
    static let maxTextBytes = 4 * byteLengthRange.upperBound

    /// Why a string is not a device token.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Reads a token as clients send it, normalizing the mangled but recoverable forms.
    ///
    /// Recoverable: uppercase hex, whitespace or newlines inside, the old `NSData.description` form
    /// `<ce8be627 2e43e855 …>`. Not recoverable (an error, never a guess): the iOS 13+ description
    /// `{length = 32, bytes = 0xce8b... }` whose middle is elided, Swift's `Data.description` (`32 bytes`),
    /// FCM tokens and anything else that is not even-length hex within ``byteLengthRange``.
    /// - Throws: ``ParseError`` naming what is wrong.
    public init(parsing raw: String, environment: APNsEnvironment? = nil) throws(ParseError) {
        self.environment = environment
        if Self.isCanonical(raw) {  // the common case (and every stored token): nothing to normalize
            self.hex = raw
            return
        }
        guard raw.utf8.count <= Self.maxTextBytes else {
            throw Self.lengthProblem("\(raw.utf8.count) characters long")
        }
        var text = Substring(raw.trimmingWhitespace())
        if text.hasPrefix("{") || text.contains("...") || text.contains("length =") {
            throw ParseError(
                description:
                    "device token looks like an iOS 13+ Data description with its middle elided; send the hex of the token's bytes"
            )
        }
        if text.hasSuffix(" bytes") {
            throw ParseError(
                description:
                    "device token looks like Swift's Data.description ('N bytes'); send the hex of the token's bytes"
            )
        }
        if text.hasPrefix("<") && text.hasSuffix(">") { text = text.dropFirst().dropLast() }
        var hex = ""
        hex.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "0"..."9", "a"..."f": hex.unicodeScalars.append(scalar)
            case "A"..."F": hex.unicodeScalars.append(Unicode.Scalar(scalar.value + 32)!)
            case " ", "\t", "\n", "\r": continue
            default:
                throw ParseError(description: "device token must be hex; found '\(scalar.escaped(asASCII: true))'")
            }
        }
        guard hex.utf8.count % 2 == 0 else {
            throw ParseError(
                description: "device token must have an even number of hex digits; it has \(hex.utf8.count)"
            )
        }
        let bytes = hex.utf8.count / 2
        guard Self.byteLengthRange.contains(bytes) else {
            throw Self.lengthProblem("\(bytes) (\(hex.utf8.count) hex digits)")
        }
        self.hex = hex
    }

    /// A token's length out of ``byteLengthRange``: `measured` says what it is.
    private static func lengthProblem(_ measured: String) -> ParseError {
        ParseError(
            description:
                "device token must be \(byteLengthRange.lowerBound) to \(byteLengthRange.upperBound) bytes (twice as many hex digits); it is \(measured)"
        )
    }

    /// Whether `text` is already a token's canonical form: lowercase hex, even length, within
    /// ``byteLengthRange``.
    private static func isCanonical(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count % 2 == 0, byteLengthRange.contains(utf8.count / 2) else { return false }
        for byte in utf8 where !byte.isLowercaseASCIIHexDigit { return false }  // a direct call per byte, inlined
        return true
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.hex == rhs.hex }

    public func hash(into hasher: inout Hasher) { hasher.combine(hex) }

    /// The last 8 hex characters: the only part of a token that may appear in logs and error messages.
    public var suffix: String { String(hex.suffix(8)) }

    /// Redacted: `…` and ``suffix``. Use ``hex`` deliberately where the full token is needed.
    public var description: String { "…" + suffix }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { try self.init(parsing: raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks (no Foundation needed).
    func trimmingWhitespace() -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !isSpace($0) }),
            let end = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[start...end])
    }
}
