import Foundation
import RelayTestSupport
import Testing

/// The `notification done` line of a real `serve` at `info`: one per notification once none of its
/// deliveries is pending, counting them by outcome, and no line per push.
@Suite struct NotificationDoneLogTests {
    /// At info, a fan-out logs one line for its notification once done, counting deliveries by outcome,
    /// and no line per push.
    @Test func aNotificationLogsOneInfoLineWhenDoneAndNoLinePerPush() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = FanOutRun(devices: 12)
        let relay = try directory.serve()
        let (client, id) = try await run.start(on: relay)
        let counts = try await run.settle(client, id)
        #expect(counts["sent"] as? Int == 12)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)

        let lines = try ServeLogTests.objects(relay.stderr)
        let done = lines.filter { $0["msg"] as? String == "notification done" }
        #expect(done.count == 1, "\(relay.stderr)")
        let line = try #require(done.first)
        #expect(line["notification.id"] as? String == id && line["app.id"] as? String == "dev", "\(line)")
        #expect(line["deliveries.sent"] as? Int == 12 && line["deliveries.failed"] as? Int == 0, "\(line)")
        #expect(line["deliveries.retired"] as? Int == 0, "\(line)")
        // A delivery's lines name its notification and device.
        let perPush = lines.filter { $0["notification.id"] != nil && $0["token.suffix"] != nil }
        #expect(perPush.isEmpty, "a line per push at info:\n\(relay.stderr)")
    }

    /// Against a `push-relay mock-apns` that answers one device 410 and another 400: the line counts two
    /// sent, one retired and one failed.
    @Test func theDoneLineCountsEachOutcome() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tokens = FanOutRun(devices: 4).tokens
        let script = directory.url.appendingPathComponent("mock-script.json")
        let rules: [[String: Any]] = [
            ["token": tokens[0], "status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000],
            ["token": tokens[1], "status": 400, "reason": "BadPriority"],
        ]
        try JSONSerialization.data(withJSONObject: ["devices": rules]).write(to: script)
        let typical = SeveralRelaysProcessTests.self
        let mock = try RelayProcess(
            [
                "mock-apns", "--port", "0", "--quiet", "--script", script.path, "--topics", typical.topic,
                "--key", "\(typical.keyId):\(typical.teamId):fixtures/keys/AuthKey_\(typical.keyId).pub.pem",
            ],
            outputIn: directory.url,
            name: "mock"
        )
        let mockAddress = try await mock.line(startingWith: "mock APNs listening on ")
        let mockPort = try #require(URL(string: String(mockAddress.prefix { $0 != " " }))?.port)
        let (apiKey, apiKeyHash) = try await typical.newAPIKey(in: directory)
        let relay = try RelayProcess(
            ["serve", "--port", "0", "--log-level", "info"],
            environment: [
                "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("db.sqlite").path,
                "PUSH_RELAY_APPS": typical.apps(mockPort: mockPort, apiKeyHash: apiKeyHash),
            ],
            outputIn: directory.url,
            name: "serve"
        )
        let client = RelayClient(port: try await relay.listeningPort(), apiKey: apiKey)
        for (index, token) in tokens.enumerated() {
            _ = try await client.object(
                "POST",
                "/v1/devices",
                json: ["token": token, "userId": "user\(index)", "rooms": ["room"]],
                status: [201]
            )
        }
        let id = try await typical.post(room: "room", through: client)
        let counts = try await FanOutRun(devices: 0).settle(client, id)
        #expect(counts["sent"] as? Int == 2 && counts["retired"] as? Int == 1 && counts["failed"] as? Int == 1)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)
        mock.signal(SIGTERM)
        _ = try await mock.exitStatus()

        let done = try ServeLogTests.objects(relay.stderr).filter { $0["msg"] as? String == "notification done" }
        #expect(done.count == 1, "\(relay.stderr)")
        let line = try #require(done.first)
        #expect(line["notification.id"] as? String == id && line["app.id"] as? String == "multi", "\(line)")
        #expect(line["deliveries.sent"] as? Int == 2 && line["deliveries.retired"] as? Int == 1, "\(line)")
        #expect(line["deliveries.failed"] as? Int == 1, "\(line)")
    }
}
