import Foundation
import RelayTestSupport
import Testing

/// `push-relay config check` and `serve` with `http.tls`: the pair is checked by the TLS library before
/// anything listens, and `serve` answers over HTTPS; `serve` lifts its open-file limit for connections.
@Suite struct HTTPSServeTests {
    static func fixture(_ name: String) -> String { packageRoot.appendingPathComponent("fixtures/\(name)").path }

    static func tlsVariables(certificate: String, key: String) -> [String: String] {
        ["PUSH_RELAY_HTTP_TLS_CERTIFICATE_FILE": fixture(certificate), "PUSH_RELAY_HTTP_TLS_KEY_FILE": fixture(key)]
    }

    @Test func configCheckRefusesAPairTheTLSLibraryRefuses() async throws {
        let refused = try await CommandTests.run(
            ["config", "check"],
            environment: Self.tlsVariables(certificate: "tls/server.pem", key: "tls/client.key")
        )
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("http.tls: the TLS library refused certificate"), "\(refused.stderr)")
        #expect(refused.stderr.contains("do not match"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("{"), "printed a configuration: \(refused.stdout)")

        let accepted = try await CommandTests.run(
            ["config", "check"],
            environment: Self.tlsVariables(certificate: "tls/server.pem", key: "tls/server.key")
        )
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains(Self.fixture("tls/server.key")), "\(accepted.stdout)")
        #expect(!accepted.stdout.contains("PRIVATE KEY"))
    }

    @Test func serveAnswersOverHTTPSAndLiftsItsOpenFileLimit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var environment = Self.tlsVariables(certificate: "tls/server.pem", key: "tls/server.key")
        environment["PUSH_RELAY_STORAGE_SQLITE_PATH"] = directory.url.appendingPathComponent("db.sqlite").path
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue)), &limit)
        let hard = Int(clamping: limit.rlim_max)
        // Started with a soft limit of 1,024, as many systems do.
        let relay = try RelayProcess(
            ["serve", "--port", "0", "--log-level", "info"],
            environment: environment,
            launcher: ["/usr/bin/prlimit", "--nofile=1024:\(hard)"],
            outputIn: directory.url,
            name: "serve"
        )
        let address = try await relay.line(startingWith: "PushRelay listening on ")
        #expect(address.hasPrefix("https://127.0.0.1:"), "\(address)")
        let port = try await relay.listeningPort()

        let status = await runToEnd(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "20", "--cacert", Self.fixture("tls/ca.pem"), "-o", "/dev/null", "-w",
                "%{http_code}", "https://127.0.0.1:\(port)/healthz",
            ]
        ).output
        #expect(status == "200", "\(status)\n\(relay.stderr)")

        let expectedLimit = min(10_000, hard - 256)
        #expect(relay.stderr.contains(#""http.connection_limit":\#(expectedLimit)"#), "\(relay.stderr)")
        relay.signal(SIGTERM)
        let exit = try await relay.exitStatus()
        #expect(exit.exited && exit.status == 0, "\(exit)\n\(relay.stderr)")
    }
}
