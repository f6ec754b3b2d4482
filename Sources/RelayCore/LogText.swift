/// Text a client sent (a method, a path, a header's value) as a log line carries it: at most ``maxBytes``
/// bytes of UTF-8, cut at a character boundary and ended with `…` when cut, so nothing a client sends
/// makes a log line long.
public enum LogText {
    /// Most bytes of one client-given field in a log line: 256.
    public static let maxBytes = 256

    /// `text` when it fits in `maxBytes` bytes of UTF-8, else its longest prefix of whole Unicode scalars
    /// that fits with the 3-byte `…` after it.
    public static func clipped(_ text: some StringProtocol, maxBytes: Int = maxBytes) -> String {
        guard text.utf8.count > maxBytes else { return String(text) }
        let ellipsis = "…"
        let room = max(0, maxBytes - ellipsis.utf8.count)
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            let size = String(scalar).utf8.count
            guard bytes + size <= room else { break }
            kept.append(scalar)
            bytes += size
        }
        return String(kept) + ellipsis
    }
}
