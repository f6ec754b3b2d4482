import RelayCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The image URL rule: a public host name over https, nothing a device would take as an address or a host
/// of its own network.
@Suite struct ImageURLTests {
    @Test(arguments: [
        "https://cdn.example.com/a/b.jpg",
        "HTTPS://CDN.Example.COM/a.jpg",
        "https://cdn.example.com:443/a.jpg",
        "https://cdn.example.com./a.jpg",
        "https://xn--bcher-kva.example/b%C3%BCcher.png",
        "https://1e100.net/x.png",
        "https://123.example.com/x.png",
        "https://images.example.com/sunset.jpg?size=large#top",
        "https://a-b.example/x",
    ])
    func accepted(url: String) {
        #expect(ImageURL.problem(url) == nil)
    }

    @Test(arguments: [
        // Not https, not absolute, or not RFC 3986 characters.
        "http://cdn.example.com/a.jpg", "javascript:alert(1)", "//cdn.example.com/a.jpg", "https:///a.jpg",
        "https:cdn.example.com/a.jpg", "https://cdn.example.com/%zz", "https://cdn.example.com/<script>",
        "https://example.com/a.jpg\n", "https://bücher.example/a.jpg",
        // User info, ports other than 443.
        "https://user:pass@example.com/a.jpg", "https://user@example.com/a.jpg", "https://example.com:8443/a.jpg",
        "https://example.com:80/a.jpg", "https://example.com:0/a.jpg", "https://example.com:99999999999999999999/a.jpg",
        // IPv6 literals.
        "https://[::1]/a.jpg", "https://[fe80::1]/a.jpg", "https://[::ffff:127.0.0.1]/a.jpg",
        "https://[fe80::1%25eth0]/a.jpg", "https://[2001:db8::1]:443/a.jpg",
        // IPv4 in inet_pton's spelling and in the numeric forms inet_aton and browsers also read.
        "https://127.0.0.1/a.jpg", "https://169.254.169.254/latest/meta-data", "https://10.0.0.1./a.jpg",
        "https://2130706433/a.jpg", "https://0x7f.1/a.jpg", "https://0x7f000001/a.jpg", "https://127.1/a.jpg",
        "https://0177.0.0.1/a.jpg", "https://0/a.jpg", "https://0X7F.0.0.1/a.jpg", "https://example.0x10/a.jpg",
        "https://%31%32%37.0.0.1/a.jpg", "https://127%2E0%2E0%2E1/a.jpg",
        // The device's own host and network.
        "https://localhost/a.jpg", "https://LOCALHOST./a.jpg", "https://img.localhost/a.jpg",
        "https://printer.local/a.jpg", "https://router.home.arpa/a.jpg", "https://db.internal/a.jpg",
        "https://intranet/a.jpg", "https://intranet./a.jpg",
        // Host names that are not DNS labels.
        "https://a..b/x", "https://-a-.example/x", "https://a_b.example/x",
        "https://" + String(repeating: "a", count: 64) + ".example/x",
        "https://example.com/" + String(repeating: "a", count: 2048),
    ])
    func refused(url: String) {
        #expect(ImageURL.problem(url) != nil)
    }

    /// The numeric hosts above are real addresses to the C library: refusing them is not refusing names.
    @Test(arguments: ["2130706433", "0x7f.1", "0x7f000001", "127.1", "0177.0.0.1", "0"])
    func numericHostsAreAddressesToInetAton(host: String) {
        var address = in_addr()
        #expect(inet_aton(host, &address) != 0)
    }

    @Test func theProblemSaysWhatIsWrong() throws {
        #expect(try #require(ImageURL.problem("https://127.0.0.1/a")).contains("IP address"))
        #expect(try #require(ImageURL.problem("https://example.com:8443/a")).contains("443"))
        #expect(try #require(ImageURL.problem("https://printer.local/a")).contains("own network"))
        #expect(try #require(ImageURL.problem("https://intranet/a")).contains("fully qualified"))
    }
}
