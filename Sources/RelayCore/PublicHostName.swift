/// A host name the open internet knows, as a URL that leaves the relay's hands must name (an image a device
/// fetches, a push service endpoint the relay posts to): DNS labels of letters, digits and hyphens (RFC 1123
/// section 2.1), at least two of them, never an IP address in any spelling (IPv4 and IPv6 literals, and any
/// host whose last label is a number: `2130706433`, `0x7f.1`, `127.1`), nor a special-use local name
/// (`localhost`, `local`, `home.arpa`, `internal`, and names under them).
public enum PublicHostName {
    /// Why `host` (lowercase, as written in the URL) is not a public host name; nil when it is one.
    public static func problem(_ host: String) -> String? {
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if host.contains(":") || IPAddress(name) != nil || labels.last.map(isNumeric) == true {
            return "must name its host, not give an IP address"
        }
        guard name.utf8.count <= 253, labels.allSatisfy(isLabel) else {
            return "must have a host name of DNS labels (letters, digits, inner hyphens; 1 to 63 bytes each)"
        }
        guard labels.count >= 2 else {
            return "must have a fully qualified host name (a single label names a host of a local network)"
        }
        if let local = localSuffixes.first(where: { name == $0 || name.hasSuffix("." + $0) }) {
            return "must not name a host of a machine itself or its own network ('\(local)')"
        }
        return nil
    }

    /// Special-use domains whose names the device resolves on itself or its own network.
    private static let localSuffixes = ["localhost", "local", "home.arpa", "internal"]

    /// A label the URL standard reads as a number (decimal, or hex after `0x`, octal being decimal
    /// digits): a host ending in one is an IPv4 address to it, and `inet_aton` reads such forms too.
    private static func isNumeric(_ label: Substring) -> Bool {
        guard !label.isEmpty else { return false }
        if label.hasPrefix("0x") { return label.utf8.dropFirst(2).allSatisfy(\.isASCIIHexDigit) }
        return label.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// DNS labels of 1 to 63 letters, digits and hyphens, none starting or ending with a hyphen (RFC 1123
    /// section 2.1).
    private static func isLabel(_ label: Substring) -> Bool {
        (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
            && label.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") }
    }
}
