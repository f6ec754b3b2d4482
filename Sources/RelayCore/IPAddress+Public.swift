extension IPAddress {
    /// Whether the address is reachable on the public internet: a host that a URL given by a user may make
    /// the relay connect to (a Web Push endpoint, checked at connect time against server-side request
    /// forgery).
    ///
    /// IPv4: every address outside the special-purpose ranges of the IANA IPv4 Special-Purpose Address
    /// Registry (RFC 6890) that are not globally reachable: this network `0/8`, private `10/8`,
    /// `172.16/12`, `192.168/16`, shared CGNAT `100.64/10`, loopback `127/8`, link-local `169.254/16`,
    /// IETF protocol assignments `192.0.0/24`, documentation `192.0.2/24`, `198.51.100/24`, `203.0.113/24`,
    /// 6to4 relay anycast `192.88.99/24`, benchmarking `198.18/15`, multicast `224/4`, reserved `240/4`
    /// (with broadcast). An IPv4-mapped IPv6 address is its IPv4 address (``IPAddress`` stores it so).
    ///
    /// IPv6: only global unicast `2000::/3`, without documentation `2001:db8::/32` and `3fff::/20`, IETF
    /// protocol assignments `2001::/23` (Teredo, ORCHIDs, benchmarking); 6to4 `2002::/16` and the NAT64
    /// prefix `64:ff9b::/96` are public when the IPv4 address they embed is. So loopback `::1`, unspecified
    /// `::`, IPv4-compatible `::/96`, ULA `fc00::/7`, link-local `fe80::/10`, site-local `fec0::/10`,
    /// multicast `ff00::/8`, discard `100::/64` and NAT64 local use `64:ff9b:1::/48` are not.
    public var isPublic: Bool {
        if isIPv4 { return !Self.nonPublicIPv4.contains { $0.contains(self) } }
        if Self.nat64.contains(self) { return IPAddress(networkBytes: Array(bytes[12...])).isPublic }
        if Self.sixToFour.contains(self) { return IPAddress(networkBytes: Array(bytes[2..<6])).isPublic }
        return Self.globalUnicast.contains(self) && !Self.nonPublicIPv6.contains { $0.contains(self) }
    }

    private static let nonPublicIPv4 = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    ].map { IPNetwork($0)! }

    private static let globalUnicast = IPNetwork("2000::/3")!
    private static let nonPublicIPv6 = ["2001::/23", "2001:db8::/32", "3fff::/20"].map { IPNetwork($0)! }
    private static let nat64 = IPNetwork("64:ff9b::/96")!
    private static let sixToFour = IPNetwork("2002::/16")!
}
