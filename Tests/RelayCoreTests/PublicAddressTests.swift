import RelayCore
import Testing

/// `IPAddress.isPublic`: the addresses a URL given by a user may make the relay connect to.
@Suite struct PublicAddressTests {
    @Test(arguments: [
        "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.254", "127.0.0.1",
        "127.8.9.10", "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.8", "192.0.2.10",
        "192.88.99.1", "192.168.1.1", "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1",
        "239.255.255.250", "240.0.0.1", "255.255.255.255",
        "::", "::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::127.0.0.1",
        "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "fec0::1", "ff02::1", "ff0e::1", "100::1",
        "2001:db8::1", "2001::1", "2001:10::1", "3fff::1", "64:ff9b::10.0.0.1", "64:ff9b::127.0.0.1",
        "64:ff9b:1::1", "2002:0a00:0001::1", "2002:7f00:0001::1", "4000::1", "::2",
    ])
    func refusesWhatIsNotPublic(_ text: String) throws {
        #expect(try #require(IPAddress(text)).isPublic == false)
    }

    @Test(arguments: [
        "1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.1", "100.63.255.255", "100.128.0.1", "126.255.255.255",
        "128.0.0.1", "142.250.74.42", "169.253.1.1", "172.15.255.255", "172.32.0.1", "192.0.1.1", "192.167.1.1",
        "198.17.255.255", "198.20.0.1", "203.0.114.1", "223.255.255.255",
        "2600:1f18::1", "2a00:1450:4001:80b::200a", "2001:4860:4860::8888", "2606:4700::1111",
        "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1",
    ])
    func takesWhatIsPublic(_ text: String) throws {
        #expect(try #require(IPAddress(text)).isPublic)
    }

    @Test func socketBytesOfAMappedAddressAreItsIPv4Address() {
        let mapped = IPAddress(networkBytes: Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1])
        #expect(mapped == IPAddress("127.0.0.1"))
        #expect(mapped.isPublic == false)
    }
}
