#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A numeric IPv4 or IPv6 address, parsed and printed by the C library (`inet_pton`, `inet_ntop`).
///
/// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack socket reports for an IPv4 peer) is
/// the IPv4 address it maps, so either spelling matches the same ``IPNetwork``.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Parses a numeric address (`"203.0.113.7"`, `"2001:db8::1"`); `nil` for anything else (a host name,
    /// a port suffix, brackets, a zone index).
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(networkBytes: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self.init(networkBytes: withUnsafeBytes(of: &v6) { Array($0) })
    }

    /// An address from its bytes in network byte order (4 or 16 of them, as a socket address holds them);
    /// an IPv4-mapped IPv6 address becomes the IPv4 address it maps, as in ``init(_:)``.
    public init(networkBytes: [UInt8]) {
        precondition(networkBytes.count == 4 || networkBytes.count == 16, "an address has 4 or 16 bytes")
        self.bytes = networkBytes.starts(with: Self.mappedPrefix) ? Array(networkBytes[12...]) : networkBytes
    }

    /// The first 12 bytes of an IPv4-mapped IPv6 address (`::ffff:0:0/96`).
    private static let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The canonical text (`inet_ntop`): `"203.0.113.7"`, `"2001:db8::1"`.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
