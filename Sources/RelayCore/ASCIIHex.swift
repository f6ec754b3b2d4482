extension UInt8 {
    /// Whether this byte is an ASCII hex digit: `0`-`9`, `a`-`f` or `A`-`F` (RFC 5234 HEXDIG, either case).
    /// Unlike `Character.isHexDigit` it takes no full-width forms.
    public var isASCIIHexDigit: Bool { isLowercaseASCIIHexDigit || (0x41...0x46).contains(self) }

    /// Whether this byte is `0`-`9` or `a`-`f`.
    public var isLowercaseASCIIHexDigit: Bool { (0x30...0x39).contains(self) || (0x61...0x66).contains(self) }

    /// Whether this byte is an ASCII letter or digit (RFC 5234 ALPHA / DIGIT).
    public var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
