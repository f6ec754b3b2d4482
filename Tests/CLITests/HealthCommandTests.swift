import Foundation
import RelayTestSupport
import Testing

/// `push-relay health`, the image's health check, against a live `serve` over HTTP and HTTPS.
@Suite struct HealthCommandTests {
    /// Runs `push-relay health arguments...` with `environment`.
    static func health(
        _ arguments: [String],
        environment: [String: String] = [:]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await CommandTests.run(["health"] + arguments, environment: environment)
    }

    @Test func answersForALiveRelayOverHTTPAndNotForAStoppedOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let relay = try directory.serve(arguments: [])
        let port = try await relay.listeningPort()
        let healthy = try await Self.health([], environment: ["PUSH_RELAY_HTTP_PORT": "\(port)"])
        #expect(healthy.status == 0, "\(healthy.stderr)")
        #expect(healthy.stdout.contains("healthy: http://127.0.0.1:\(port)/healthz"), "\(healthy.stdout)")
        // A relay listening on every interface is asked on loopback.
        #expect(try await Self.health(["--host", "0.0.0.0", "--port", "\(port)"]).status == 0)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)

        let stopped = try await Self.health(["--port", "\(port)"])
        #expect(stopped.status == 1)
        #expect(stopped.stderr.contains("unhealthy: http://127.0.0.1:\(port)/healthz"), "\(stopped.stderr)")
    }

    @Test func answersOverHTTPSTrustingTheConfiguredCertificateOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tls = HTTPSServeTests.tlsVariables(certificate: "tls/server.pem", key: "tls/server.key")
        var environment = tls
        environment["PUSH_RELAY_STORAGE_SQLITE_PATH"] = directory.url.appendingPathComponent("db.sqlite").path
        let relay = try RelayProcess(
            ["serve", "--port", "0"],
            environment: environment,
            outputIn: directory.url,
            name: "serve"
        )
        let port = try await relay.listeningPort()

        let healthy = try await Self.health(["--port", "\(port)"], environment: tls)
        #expect(healthy.status == 0, "\(healthy.stderr)")
        #expect(healthy.stdout.contains("https://127.0.0.1:\(port)/healthz"), "\(healthy.stdout)")
        // Its CA is trusted too.
        let byCA = HTTPSServeTests.tlsVariables(certificate: "tls/ca.pem", key: "tls/server.key")
        #expect(try await Self.health(["--port", "\(port)"], environment: byCA).status == 0)
        // Another certificate is not the relay's: refused, as is plain HTTP to an HTTPS listener.
        let other = HTTPSServeTests.tlsVariables(certificate: "tls/client.pem", key: "tls/client.key")
        #expect(try await Self.health(["--port", "\(port)"], environment: other).status == 1)
        #expect(try await Self.health(["--port", "\(port)"]).status == 1)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)
    }
}
