import Foundation
import Testing

/// Issue 4, at the process level: SIGTERM during a fan-out stops `push-relay serve` with exit 0, and what it
/// did not send goes out on the next start on the same database. Nothing is lost, nothing is sent twice.
@Suite struct ServeShutdownTests {
    static let devices = 300

    @Test func sigtermDuringAFanOutLosesNothingAndSendsNothingTwice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = FanOutRun(devices: Self.devices)
        // A few sends at a time, so the fan-out is still going when SIGTERM arrives.
        let first = try FanOutRun.serve(in: directory, concurrency: 4, name: "first")
        var (client, notificationId) = try await run.start(on: first)
        let apiKey = client.apiKey
        first.signal(SIGTERM)
        let firstExit = try await first.exitStatus()
        #expect(firstExit.exited && firstExit.status == 0, "first run: \(firstExit)\n\(first.stderr)")

        // The same database again: whatever was pending goes out now.
        let second = try FanOutRun.serve(in: directory, concurrency: 4, name: "second")
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
