import Foundation
import RelayTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `http.admin` as an operator sets it: `config check` refuses a clash, `serve` says where it listens.
@Suite struct AdminListenerCommandTests {
    static func status(_ url: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return try #require(response as? HTTPURLResponse).statusCode
    }

    @Test func configCheckRefusesTheAPIsPort() async throws {
        let result = try await CommandTests.run(
            ["config", "check"],
            environment: ["PUSH_RELAY_HTTP_ADMIN_ENABLED": "true", "PUSH_RELAY_HTTP_ADMIN_PORT": "8080"]
        )
        #expect(result.status == 1)
        #expect(result.stderr.contains("http.admin.port: must differ from http.port (8080)"), "\(result.stderr)")
        let fine = try await CommandTests.run(
            ["config", "check"],
            environment: ["PUSH_RELAY_HTTP_ADMIN_ENABLED": "true", "PUSH_RELAY_HTTP_ADMIN_PORT": "9464"]
        )
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(fine.stdout.contains("\"admin\""), "\(fine.stdout)")
        // No apps: what serve runs in their place is said.
        #expect(fine.stderr.contains("note: apps: none configured: serve runs the development app 'dev'"))
    }

    @Test func serveListensForMetricsOnTheAdminAddress() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let relay = try directory.serve(
            ["PUSH_RELAY_HTTP_ADMIN_ENABLED": "true", "PUSH_RELAY_HTTP_ADMIN_PORT": "0"],
            arguments: []
        )
        let port = try await relay.listeningPort()
        let admin = try #require(URL(string: try await relay.line(startingWith: "PushRelay admin on "))?.port)
        #expect(try await Self.status("http://127.0.0.1:\(admin)/metrics") == 200)
        #expect(try await Self.status("http://127.0.0.1:\(port)/metrics") == 404)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)
    }
}
