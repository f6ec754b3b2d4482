import RelayCore
import Testing

@Suite struct IPPrefixTests {
    @Test func ipv4AddressesShareTheirSlash24() throws {
        let a = try #require(IPAddress("203.0.113.7")).enclosingPrefix()
        let b = try #require(IPAddress("203.0.113.250")).enclosingPrefix()
        let c = try #require(IPAddress("203.0.114.7")).enclosingPrefix()
        #expect(a == b)
        #expect(a != c)
        #expect(a.description == "203.0.113.0/24")
    }

    @Test func ipv6AddressesShareTheirSlash64() throws {
        let a = try #require(IPAddress("2001:db8:1:2:aaaa::1")).enclosingPrefix()
        let b = try #require(IPAddress("2001:db8:1:2:ffff:ffff:ffff:ffff")).enclosingPrefix()
        let c = try #require(IPAddress("2001:db8:1:3::1")).enclosingPrefix()
        #expect(a == b)
        #expect(a != c)
        #expect(a.description == "2001:db8:1:2::/64")
    }

    @Test func mappedIPv4TakesTheIPv4Prefix() throws {
        let mapped = try #require(IPAddress("::ffff:198.51.100.9")).enclosingPrefix()
        #expect(mapped.description == "198.51.100.0/24")
    }

    @Test func prefixLengthsAreConfigurableAndClamped() throws {
        let v6 = try #require(IPAddress("2001:db8:abcd:1234::1"))
        #expect(v6.enclosingPrefix(ipv6Length: 48).description == "2001:db8:abcd::/48")
        #expect(v6.enclosingPrefix(ipv6Length: 500).prefixLength == 128)
        let v4 = try #require(IPAddress("10.1.2.3"))
        #expect(v4.enclosingPrefix(ipv4Length: 16).description == "10.1.0.0/16")
        #expect(v4.enclosingPrefix(ipv4Length: -1).description == "0.0.0.0/0")
    }
}
