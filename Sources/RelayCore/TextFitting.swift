import Foundation

/// Cuts the texts of a push until its encoding fits the service's byte limit: the one rule both renderings
/// follow (APNs' 4,096-byte payload, FCM's 4,096-byte message).
///
/// Texts are cut on a Character boundary, never inside a UTF-8 sequence or a JSON escape (the encoding is
/// measured, not the text), and end with ``ellipsis``.
public enum TextFitting {
    /// What ends a text that had to be shortened.
    public static let ellipsis = "…"

    /// Why a value cannot be encoded within the limit.
    public struct Overflow: Error, Sendable, Equatable {
        /// The bytes the encoding needs even with every text that may be cut emptied.
        public var minimumBytes: Int
    }

    /// The encoding of `value` within `limit` bytes: as it is when it fits; else the text at the first of
    /// `keyPaths` cut to its longest prefix (plus "…") that fits, or emptied and the next one cut, and so on.
    /// - Parameter encode: the exact bytes that will be sent for a value.
    /// - Returns: bytes whose count is at most `limit`.
    /// - Throws: ``Overflow`` when even with every text at `keyPaths` emptied the encoding is too large.
    public static func fit<Value>(
        _ value: Value,
        cutting keyPaths: [WritableKeyPath<Value, String?>],
        limit: Int,
        encode: (Value) -> Data
    ) throws(Overflow) -> Data {
        let full = encode(value)
        if full.count <= limit { return full }
        var trial = value
        for keyPath in keyPaths {
            guard let text = value[keyPath: keyPath], !text.isEmpty else { continue }
            if let fitted = longestPrefix(of: text, at: keyPath, in: &trial, limit: limit, encode: encode) {
                return fitted
            }
            trial[keyPath: keyPath] = ""
        }
        throw Overflow(minimumBytes: encode(trial).count)
    }

    /// `text` within `maxCharacters` Characters AND `maxBytes` bytes of UTF-8: as it is when it fits, else its
    /// longest prefix of whole Characters that fits with ``ellipsis`` after it (the "…" counted in both).
    /// The one rule that cuts a text to a size without an encoding: shown names, and texts as they are kept.
    /// - Precondition: `maxCharacters >= 1` and `maxBytes >= 3` (room for the "…").
    public static func prefix(_ text: String, maxCharacters: Int, maxBytes: Int) -> String {
        if text.utf8.count <= maxBytes, text.count <= maxCharacters { return text }
        let room = maxBytes - ellipsis.utf8.count
        var kept = Substring(), bytes = 0
        for character in text.prefix(maxCharacters - 1) {
            bytes += character.utf8.count
            guard bytes <= room else { break }
            kept.append(character)
        }
        return kept + ellipsis
    }

    /// The encoding with the longest prefix of `text` (plus "…") at `keyPath` that fits, found by binary
    /// search on the number of Characters; nil when none fits. Leaves `value` holding the last trial.
    private static func longestPrefix<Value>(
        of text: String,
        at keyPath: WritableKeyPath<Value, String?>,
        in value: inout Value,
        limit: Int,
        encode: (Value) -> Data
    ) -> Data? {
        let characters = Array(text)
        var low = 0, high = characters.count - 1, best: Data?
        while low <= high {
            let middle = (low + high) / 2
            value[keyPath: keyPath] = String(characters[..<middle]) + ellipsis
            let data = encode(value)
            if data.count <= limit {
                best = data
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }
}
