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

        let run = FanOutRun(devices: Self.devices)
        let first = try RelayProcess(arguments, environment: environment, outputIn: directory.url, name: "first")
        let apiKey = try await first.line(startingWith: "API key: ")
        var client = RelayClient(port: try await first.listeningPort(), apiKey: apiKey)
        let notificationId = try await run.start(client)
        first.signal(SIGTERM)
        let firstExit = try await first.exitStatus()
        #expect(firstExit.exited && firstExit.status == 0, "first run: \(firstExit)\n\(first.stderr)")

        // The same database again: whatever was pending goes out now.
        let second = try RelayProcess(arguments, environment: environment, outputIn: directory.url, name: "second")
        #expect(try await second.line(startingWith: "API key: ") == apiKey)
        client.port = try await second.listeningPort()
        let counts = try await run.settle(client, notificationId)
        second.signal(SIGHUP)  // the terminal went away: stopped as gracefully as SIGTERM
        let secondExit = try await second.exitStatus()
        #expect(secondExit.exited && secondExit.status == 0, "second run: \(secondExit)\n\(second.stderr)")
        #expect(counts["sent"] as? Int == Self.devices)

        // Every device exactly once across both runs.
        let seen = try FanOutRun.sends(in: first.stdoutLines + second.stdoutLines)
        #expect(Set(seen.keys) == run.suffixes, "\(run.suffixes.subtracting(seen.keys).count) devices never sent")
        let twice = seen.filter { $0.value > 1 }
        #expect(twice.isEmpty, "sent more than once: \(twice)")
        #expect(!first.stderr.contains("shutdown bound reached"))
    }
}
