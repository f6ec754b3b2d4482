import Foundation
import RelayTestSupport
import Testing

/// A room of devices registered through a running `serve`, one webhook to it, and what the in-process mock
/// APNs printed for it: the process-level fan-out the shutdown and crash tests share.
struct FanOutRun {
    /// Device tokens with distinct last 8 hex digits: the mock's output line names a token by them.
    let tokens: [String]
    var suffixes: Set<String> { Set(tokens.map { String($0.suffix(8)) }) }

    init(devices: Int) {
        tokens = (0..<devices).map { index in
            (0..<28).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                + String(format: "%08x", index)
        }
    }

    /// `push-relay serve` on port 0 over the database in `directory`, sending `concurrency` pushes at a time
    /// (few, so a fan-out is still going when the test stops it); each start on the same directory is a
    /// restart of the same relay.
    static func serve(in directory: TemporaryDirectory, concurrency: Int, name: String) throws -> RelayProcess {
        try RelayProcess(
            ["serve", "--port", "0", "--log-level", "warning"],
            environment: [
                "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("db.sqlite").path,
                "PUSH_RELAY_DELIVERY_CONCURRENCY": "\(concurrency)",
            ],
            outputIn: directory.url,
            name: name
        )
    }

    /// Starts `relay`'s fan-out: waits until it listens, then ``start(_:)``; returns the client (with the
    /// development app's key) and the notification id.
    func start(on relay: RelayProcess) async throws -> (client: RelayClient, notificationId: String) {
        let apiKey = try await relay.line(startingWith: "API key: ")
        let client = RelayClient(port: try await relay.listeningPort(), apiKey: apiKey)
        return (client, try await start(client))
    }

    /// Registers every token for its own user in room `crowd`, then posts one message there; returns the
    /// notification id once the webhook is answered 202 for every device.
    func start(_ client: RelayClient) async throws -> String {
        for (index, token) in tokens.enumerated() {
            _ = try await client.object(
                "POST",
                "/v1/devices",
                json: ["token": token, "userId": "user\(index)", "rooms": ["crowd"]],
                status: [201]
            )
        }
        let accepted = try await client.object(
            "POST",
            "/v1/webhooks/did-send-message",
            json: ["roomId": "crowd", "senderId": "speaker", "text": "everyone", "messageId": "fan-out-1"],
            status: [202]
        )
        #expect(accepted["devices"] as? Int == tokens.count)
        return try #require(accepted["notificationId"] as? String)
    }

    /// Waits (up to 60 s) until the notification has no pending delivery; returns its counts.
    func settle(_ client: RelayClient, _ notificationId: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let view = try await client.object("GET", "/v1/notifications/\(notificationId)", status: [200])
            let counts = try #require(view["counts"] as? [String: Any])
            if counts["pending"] as? Int == 0 { return counts }
            try #require(ContinuousClock.now < deadline, "still pending: \(counts)")
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// How many times the mock accepted a push for each token suffix, over the output of every run.
    static func sends(in lines: [String]) throws -> [String: Int] {
        var seen: [String: Int] = [:]
        for line in lines where line.hasPrefix("mock APNs accepted ") {
            let field = try #require(line.split(separator: " ").first { $0.hasPrefix("token=…") })
            #expect(line.contains(#" payload={"aps":{"#) && line.contains(#""dittoChatRoomId":"#), "\(line)")
            seen[String(field.dropFirst("token=…".count)), default: 0] += 1
        }
        return seen
    }
}
