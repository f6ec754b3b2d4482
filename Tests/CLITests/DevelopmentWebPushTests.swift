import Foundation
import RelayTestSupport
import Testing

/// `push-relay serve` on its embedded defaults runs a mock Web Push service for the development app. A
/// subscription it made names its port, and the relay sends web pushes to its app's mock only: a restart
/// keeps the port, so a browser subscribed in one run is still reached in the next.
@Suite struct DevelopmentWebPushTests {
    @Test func aSubscriptionMadeInOneRunIsReachedAfterARestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.url.appendingPathComponent("data")

        let (first, url) = try await RelayProcess.development(
            data: data,
            in: directory.url,
            name: "first",
            mock: "Web Push"
        )
        let made = try await CommandTests.run(
            ["mock-webpush", "--new-subscription", "--url", url, "--subscriptions"]
                + [data.appendingPathComponent("webpush-subscriptions").path]
        )
        #expect(made.status == 0, "\(made.stderr)")
        let subscription = try #require(
            try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any]
        )
        var client = RelayClient(
            port: try await first.listeningPort(),
            apiKey: try await first.line(startingWith: "API key: ")
        )
        _ = try await client.object(
            "POST",
            "/v1/devices",
            json: ["platform": "web", "subscription": subscription, "userId": "alice", "rooms": ["general"]],
            status: [201]
        )
        first.signal(SIGTERM)
        #expect(try await first.exitStatus().status == 0)

        let (second, again) = try await RelayProcess.development(
            data: data,
            in: directory.url,
            name: "second",
            mock: "Web Push"
        )
        #expect(again == url)
        client.port = try await second.listeningPort()
        _ = try await client.object(
            "POST",
            "/v1/webhooks/did-send-message",
            json: ["roomId": "general", "senderId": "bob", "text": "still there?", "messageId": "restart-1"],
            status: [202]
        )
        let accepted = try await second.line(startingWith: "mock Web Push accepted ")
        #expect(accepted.contains("still there?"), "\(accepted)")
        second.signal(SIGTERM)
        #expect(try await second.exitStatus().status == 0)

        // Given the mock's port, the relay listens there and the mock takes another.
        let port = try #require(Int(url.split(separator: ":").last ?? ""))
        let third = try RelayProcess(
            ["serve", "--port", "\(port)", "--admin-port", "0"],
            environment: ["PUSH_RELAY_STORAGE_SQLITE_PATH": data.appendingPathComponent("db.sqlite").path],
            outputIn: directory.url,
            name: "third"
        )
        #expect(try await third.listeningPort() == port)
        #expect(third.stderr.contains("the in-process mock Web Push's last port is the relay's own now"))
        third.signal(SIGTERM)
        #expect(try await third.exitStatus().status == 0)
    }
}
