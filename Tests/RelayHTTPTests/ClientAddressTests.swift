import Foundation
import RelayCore
import RelayHTTP
import Synchronization
import Testing

/// The client address behind trusted proxies (`X-Forwarded-For`), over real sockets, and the address ranges
/// it is decided with.
@Suite struct ClientAddressTests {
    static func router() -> Router {
        var router = Router()
        router.get("/whoami") { request, _ in .text("\(request.clientAddress) via \(request.remoteAddress)") }
        return router
    }

    /// The answer to `GET /whoami` sent from `source` with these `X-Forwarded-For` lines.
    static func whoami(_ port: Int, forwardedFor lines: [String], from source: String? = nil) async throws -> String {
        let connection = try RawConnection(port: port, from: source)
        let fields = lines.map { "X-Forwarded-For: \($0)\r\n" }.joined()
        await connection.write("GET /whoami HTTP/1.1\r\nHost: t\r\n\(fields)Connection: close\r\n\r\n")
        let raw = await connection.read()
        guard let body = raw.range(of: "\r\n\r\n") else { return raw }
        return String(raw[body.upperBound...])
    }

    @Test(arguments: [
        ([], "127.0.0.1"),
        (["203.0.113.7"], "203.0.113.7"),
        // Left of the first untrusted hop may be forged by the client.
        (["198.51.100.1, 203.0.113.7"], "203.0.113.7"),
        (["198.51.100.1", "203.0.113.7"], "203.0.113.7"),
        (["203.0.113.7, 10.1.2.3"], "203.0.113.7"),
        // Every hop trusted: the left-most.
        (["10.1.2.3, 10.9.9.9"], "10.1.2.3"),
        // A hop that is not an address stops the walk at the last trusted one.
        (["203.0.113.7, unknown"], "127.0.0.1"),
        (["203.0.113.7:4711"], "127.0.0.1"),
        (["unknown, 10.1.2.3"], "10.1.2.3"),
        (["2001:DB8::1"], "2001:db8::1"),
        (["::ffff:203.0.113.9"], "203.0.113.9"),
    ])
    func behindATrustedProxyTheClientComesFromXForwardedFor(lines: [String], client: String) async throws {
        try await withServer(
            configure: { $0.trustedProxies = ["127.0.0.1", "10.0.0.0/8"] },
            handler: Self.router().handler
        ) { server in
            let answer = try await Self.whoami(server.port, forwardedFor: lines)
            #expect(answer == "\(client) via 127.0.0.1")
        }
    }

    @Test func anUntrustedPeersXForwardedForIsIgnored() async throws {
        try await withServer(configure: { $0.trustedProxies = ["127.0.0.1/32"] }, handler: Self.router().handler) {
            server in
            let answer = try await Self.whoami(server.port, forwardedFor: ["203.0.113.7"], from: "127.0.0.2")
            #expect(answer == "127.0.0.2 via 127.0.0.2")
        }
        try await withServer(handler: Self.router().handler) { server in
            let answer = try await Self.whoami(server.port, forwardedFor: ["203.0.113.7"])
            #expect(answer == "127.0.0.1 via 127.0.0.1")
        }
    }

    @Test func theAccessLogEntryCarriesTheClientAddress() async throws {
        let entries = Mutex<[AccessLogEntry]>([])
        try await withServer(
            configure: { $0.trustedProxies = ["127.0.0.0/8"] },
            onResponse: { entry in entries.withLock { $0.append(entry) } },
            handler: Self.router().handler
        ) { server in
            _ = try await Self.whoami(server.port, forwardedFor: ["203.0.113.7"])
        }
        let entry = try #require(entries.withLock { $0.first })
        #expect(entry.clientAddress == "203.0.113.7")
        #expect(entry.remoteAddress == "127.0.0.1")
    }

    @Test func aProxyListThatIsNotAddressesDoesNotStart() {
        var configuration = HTTPServerConfiguration()
        configuration.trustedProxies = ["10.0.0.0/8", "proxy.internal"]
        #expect(configuration.validate() == ["http.trustedProxies must be IP addresses or CIDR ranges"])
    }

    @Test(arguments: [
        ("10.0.0.0/8", "10.255.1.2", true),
        ("10.0.0.0/8", "11.0.0.1", false),
        ("10.1.2.3/8", "10.9.9.9", true),
        ("192.0.2.1", "192.0.2.1", true),
        ("192.0.2.1", "192.0.2.2", false),
        ("0.0.0.0/0", "198.51.100.4", true),
        ("0.0.0.0/0", "2001:db8::1", false),
        ("2001:db8::/32", "2001:db8:ffff::1", true),
        ("2001:db8::/32", "2001:db9::1", false),
        ("::1", "::1", true),
        ("::ffff:10.0.0.0/104", "10.2.3.4", true),
        ("172.16.0.0/12", "::ffff:172.31.0.1", true),
        ("172.16.0.0/12", "172.32.0.1", false),
    ])
    func aNetworkHoldsTheAddressesOfItsPrefix(network: String, address: String, inside: Bool) throws {
        let parsed = try #require(IPNetwork(network))
        let candidate = try #require(IPAddress(address))
        #expect(parsed.contains(candidate) == inside)
    }

    @Test(arguments: [
        "", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/ 8", "10.0.0/8", "2001:db8::/129",
        "::ffff:10.0.0.0/95", "localhost", "[::1]", "10.0.0.1:80", "fe80::1%eth0", "10.0.0.0/8/8",
    ])
    func aNetworkIsRefusedUnlessAnAddressAndADecimalPrefix(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test func aNetworkPrintsItsFirstAddressAndPrefix() throws {
        #expect(try #require(IPNetwork("10.1.2.3/8")).description == "10.0.0.0/8")
        #expect(try #require(IPNetwork("2001:DB8::1")).description == "2001:db8::1/128")
        #expect(try #require(IPNetwork("::ffff:10.0.0.0/104")).description == "10.0.0.0/8")
    }
}
