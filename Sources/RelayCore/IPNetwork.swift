/// An address range in CIDR notation (`"10.0.0.0/8"`, `"2001:db8::/32"`) or a single address
/// (`"192.0.2.1"`, a /32 or /128), e.g. one entry of `http.trustedProxies`.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the range (host bits cleared).
    public let address: IPAddress
    /// Leading bits that every address in the range shares: 0...32 for IPv4, 0...128 for IPv6.
    public let prefixLength: Int

    /// Parses `address` or `address/prefix`; the address goes through ``IPAddress`` (`inet_pton`), the
    /// prefix must be decimal digits within the family's width. `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        // An IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps.
        let mapped = address.isIPv4 && parts[0].contains(":")
        var length = address.bytes.count * 8
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let parsed = Int(digits), parsed <= (mapped ? 128 : length), !mapped || parsed >= 96
            else { return nil }
            length = mapped ? parsed - 96 : parsed
        }
        self.prefixLength = length
        self.address = IPAddress(masking: address, to: length)
    }

    /// Whether `candidate` lies in this range (always false across IPv4 and IPv6).
    public func contains(_ candidate: IPAddress) -> Bool {
        candidate.bytes.count == address.bytes.count && IPAddress(masking: candidate, to: prefixLength) == address
    }

    /// `"10.0.0.0/8"`, `"2001:db8::1/128"`.
    public var description: String { "\(address)/\(prefixLength)" }
}

extension IPAddress {
    /// `address` with every bit past the first `prefixLength` cleared.
    fileprivate init(masking address: IPAddress, to prefixLength: Int) {
        var bytes = address.bytes
        for index in bytes.indices {
            let kept = min(max(prefixLength - index * 8, 0), 8)
            bytes[index] &= ~(UInt8(0xFF) >> kept)
        }
        self.init(networkBytes: bytes)
    }
}

extension IPNetwork {
    /// The range of `prefixLength` leading bits that holds `address` (e.g. the /24 or /64 a client is in).
    public init(address: IPAddress, prefixLength: Int) {
        let width = address.bytes.count * 8
        let length = min(max(prefixLength, 0), width)
        self.prefixLength = length
        self.address = IPAddress(masking: address, to: length)
    }
}

extension IPAddress {
    /// The range a client at this address shares with its neighbours for per-range limits: its
    /// `ipv4Length` prefix for IPv4 (default /24), its `ipv6Length` prefix for IPv6 (default /64, the
    /// smallest range one subscriber is usually given).
    public func enclosingPrefix(ipv4Length: Int = 24, ipv6Length: Int = 64) -> IPNetwork {
        IPNetwork(address: self, prefixLength: isIPv4 ? ipv4Length : ipv6Length)
    }
}
