import Foundation
import Testing

/// Issue 4, at the process level: SIGTERM during a fan-out stops `push-relay serve` with exit 0, and what it
/// did not send goes out on the next start on the same database. Nothing is lost, nothing is sent twice.
@Suite struct ServeShutdownTests {
    static let devices = 300

    @Test func sigtermDuringAFanOutLosesNothingAndSendsNothingTwice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = [
            "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("db.sqlite").path,
            // A few sends at a time, so the fan-out is still going when SIGTERM arrives.
            "PUSH_RELAY_DELIVERY_CONCURRENCY": "4",
        ]
        let arguments = ["serve", "--port", "0", "--log-level", "warning"]

        // Distinct last 8 hex digits: the mock's output line names a token by them.
        let tokens = (0..<Self.devices).map { index in
            (0..<28).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                + String(format: "%08x", index)
        }
        let suffixes = Set(tokens.map { String($0.suffix(8)) })

        let first = try RelayProcess(arguments, environment: environment, outputIn: directory.url, name: "first")
        let apiKey = try await first.line(startingWith: "API key: ")
        var client = RelayClient(port: try await first.listeningPort(), apiKey: apiKey)
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
        first.signal(SIGTERM)
        let firstExit = try await first.exitStatus()
        #expect(firstExit.exited && firstExit.status == 0, "first run: \(firstExit)\n\(first.stderr)")
        #expect(accepted["devices"] as? Int == Self.devices)
        let notificationId = try #require(accepted["notificationId"] as? String)

        // The same database again: whatever was pending goes out now.
        let second = try RelayProcess(arguments, environment: environment, outputIn: directory.url, name: "second")
        #expect(try await second.line(startingWith: "API key: ") == apiKey)
        client.port = try await second.listeningPort()
        let deadline = ContinuousClock.now + .seconds(60)
        var view: [String: Any] = [:]
        while true {
            view = try await client.object("GET", "/v1/notifications/\(notificationId)", status: [200])
            let counts = view["counts"] as? [String: Any]
            if counts?["pending"] as? Int == 0 { break }
            try #require(ContinuousClock.now < deadline, "still pending: \(String(describing: counts))")
            try await Task.sleep(for: .milliseconds(50))
        }
        second.signal(SIGHUP)  // the terminal went away: stopped as gracefully as SIGTERM
        let secondExit = try await second.exitStatus()
        #expect(secondExit.exited && secondExit.status == 0, "second run: \(secondExit)\n\(second.stderr)")
        let counts = try #require(view["counts"] as? [String: Any])
        #expect(counts["sent"] as? Int == Self.devices)

        // Every device exactly once across both runs.
        var seen: [String: Int] = [:]
        for line in first.stdoutLines + second.stdoutLines where line.hasPrefix("mock APNs accepted ") {
            let field = try #require(line.split(separator: " ").first { $0.hasPrefix("token=…") })
            #expect(line.contains(#" payload={"aps":{"#) && line.contains(#""dittoChatRoomId":"#), "\(line)")
            seen[String(field.dropFirst("token=…".count)), default: 0] += 1
        }
        #expect(Set(seen.keys) == suffixes, "\(suffixes.subtracting(seen.keys).count) devices never sent")
        let twice = seen.filter { $0.value > 1 }
        #expect(twice.isEmpty, "sent more than once: \(twice)")
        #expect(!first.stderr.contains("shutdown bound reached"))
    }
}
