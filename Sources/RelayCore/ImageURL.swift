import Foundation

/// The rule an image message's URL follows: every recipient's device fetches it (the app's notification
/// service extension), so it must name a public host the way the open internet knows it, never an address
/// or a name that reaches into the recipient's own device or network.
///
/// Taken: an absolute `https` URL (App Transport Security refuses plain `http` by default) of RFC 3986
/// characters only (section 2: anything else percent-encoded, so nothing rides along where a parser is
/// lenient), read by Foundation's `URLComponents`, with no user or password (every device would get them),
/// port 443 or none, and a host that is a fully qualified DNS name: labels of letters, digits and hyphens
/// (RFC 1123 section 2.1), at least two of them. Refused hosts: IPv4 and IPv6 literals in any spelling
/// (`inet_pton`'s, and the numeric forms `inet_aton` and the WHATWG URL standard read as IPv4, such as
/// `2130706433`, `0x7f.1` or `127.1`: any host whose last label is a number), a single label (the device
/// would look it up in its network's search domains), and the special-use names `localhost`, `local`
/// (RFC 6761, RFC 6762), `home.arpa` (RFC 8375) and `internal` (ICANN's private-use domain) with their
/// subdomains. The relay does not resolve names: a public name that resolves to a private address is the
/// device's resolver's business.
public enum ImageURL {
    /// The longest URL taken, in BYTES of UTF-8.
    public static let maxBytes = 2048

    /// Why `text` is not an image URL the relay passes on, as the end of a sentence naming the field
    /// ("must …"); nil when it is one.
    public static func problem(_ text: String) -> String? {
        guard text.utf8.count <= maxBytes else { return "must be at most \(maxBytes) bytes" }
        guard isURICharacters(text), let components = URLComponents(string: text),
            components.scheme?.lowercased() == "https", let host = components.encodedHost, !host.isEmpty
        else {
            return "must be an absolute https URL with a host, of RFC 3986 characters (anything else percent-encoded)"
        }
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            return "must not carry a user name or password"
        }
        if let port = components.port, port != 443 { return "must use port 443 or name none" }
        if components.hasUnreadablePort(in: text) { return "must use port 443 or name none" }
        // The host as written (`encodedHost`; `host` and `percentEncodedHost` decode percent escapes and
        // punycode), so what is checked is what the device reads.
        return PublicHostName.problem(host.lowercased())
    }

    /// RFC 3986 section 2: unreserved and reserved characters, and `%` followed by two hex digits.
    private static func isURICharacters(_ text: String) -> Bool {
        let marks = Set("-._~:/?#[]@!$&'()*+,;=".utf8)
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            if byte == UInt8(ascii: "%") {
                guard bytes.next()?.isASCIIHexDigit == true, bytes.next()?.isASCIIHexDigit == true else { return false }
            } else if !(byte.isASCIIAlphanumeric || marks.contains(byte)) {
                return false
            }
        }
        return true
    }
}
