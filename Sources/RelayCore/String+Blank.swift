extension StringProtocol {
    /// Whether nothing in the text would show: it is empty, or holds only white space (Unicode `White_Space`),
    /// control characters (Cc, e.g. U+0000) and format characters (Cf, e.g. U+200B ZERO WIDTH SPACE).
    public var isBlank: Bool {
        unicodeScalars.allSatisfy {
            $0.properties.isWhitespace || [.control, .format].contains($0.properties.generalCategory)
        }
    }
}

extension Optional where Wrapped: StringProtocol {
    /// The text, or nil when it is nil or ``StringProtocol/isBlank``.
    public var nonBlank: Wrapped? { flatMap { $0.isBlank ? nil : $0 } }
}
