import Foundation
import RelayTestSupport
import Testing

/// `http.closeDelaySeconds` at the process level: from SIGTERM on, `/readyz` answers 503 while the API
/// listener goes on serving for the delay; then the relay stops as always, with exit 0.
@Suite struct ServeCloseDelayTests {
    @Test func aStoppingRelayServesOnWhileUnreadyForTheDelay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Long enough for the calls below to fall inside it on a loaded machine; the stop is awaited to its
        // end either way.
        let relay = try directory.serve(["PUSH_RELAY_HTTP_CLOSE_DELAY_SECONDS": "15"])
        let apiKey = try await relay.line(startingWith: "API key: ")
        let client = RelayClient(port: try await relay.listeningPort(), apiKey: apiKey)
        #expect(try await client.call("GET", "/readyz").status == 200)

        relay.signal(SIGTERM)
        try await Self.waitForLog("unready; the listeners close after the delay", in: relay)
        let readiness = try await client.call("GET", "/readyz")
        #expect(readiness.status == 503)
        let checks = try JSONSerialization.jsonObject(with: readiness.body) as? [String: Any]
        #expect((checks?["checks"] as? [String: String])?["lifecycle"] == "stopping", "\(String(describing: checks))")
        // Still served: a device registered during the delay.
        _ = try await client.object(
            "POST",
            "/v1/devices",
            json: ["token": String(repeating: "ab", count: 32), "userId": "late", "rooms": ["r"]],
            status: [201]
        )

        let exit = try await relay.exitStatus()
        #expect(exit.exited && exit.status == 0, "\(exit)\n\(relay.stderr)")
        #expect(relay.stderr.contains("relay stopped"))
    }

    /// Waits for a stderr line holding `message` while the process runs (60 s at most).
    static func waitForLog(_ message: String, in relay: RelayProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !relay.stderr.contains(message) {
            guard ContinuousClock.now < deadline else {
                throw TestFailure(description: "no log line '\(message)'\nstderr:\n\(relay.stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
