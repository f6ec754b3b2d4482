/// What a push shows of a text someone wrote: the one cleaning rule every rendering applies (``ChatMessage/shown``),
/// so stored messages, old rows included, show the same clean text on every platform.
///
/// Gone: C0 and C1 control characters (tabs become a space; line breaks as below) and the bidirectional
/// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which turn the rest of a line around
/// and would let a name pass for another or hide what follows it (Unicode Technical Report #36, section
/// 2.4). Kept: ZERO WIDTH JOINER and NON-JOINER (emoji sequences, Indic and Arabic script) and the
/// LEFT-TO-RIGHT and RIGHT-TO-LEFT MARKs, which only give neutral characters a direction.
public enum ShownText {
    /// A message text or caption: each line break (LF, CR, CR LF, VT, FF, NEL, U+2028, U+2029) becomes `\n`.
    public static func text(_ text: String) -> String { cleaned(text, lineBreak: "\n") }

    /// A room or sender name, a label on one line: each line break becomes a space, and white space at
    /// either end goes.
    public static func name(_ name: String) -> String {
        let flat = cleaned(name, lineBreak: " ")
        let scalars = flat.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// `text` with the characters above dropped, tabs as spaces and line breaks as `lineBreak`.
    private static func cleaned(_ text: String, lineBreak: Unicode.Scalar) -> String {
        let scalars = text.unicodeScalars
        guard scalars.contains(where: isChanged) else { return text }
        var result = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            if scalar == "\r", index != scalars.endIndex, scalars[index] == "\n" { continue }
            if scalar == "\t" {
                result.append(" ")
            } else if lineBreaks.contains(scalar.value) {
                result.append(lineBreak)
            } else if !isDropped(scalar) {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// LF, VT, FF, CR, NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR: the mandatory breaks of Unicode Standard
    /// Annex #14 (classes BK, CR, LF, NL).
    private static let lineBreaks: Set<UInt32> = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029]

    /// Whether the scalar is not shown as it is: a control character, a line break or a bidirectional
    /// control.
    private static func isChanged(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || lineBreaks.contains(scalar.value) || isDropped(scalar)
    }

    /// C0 and C1 controls (general category Cc) and the bidirectional embeddings, overrides and isolates.
    private static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }
}
