import Foundation
import Testing

/// The crash window at the process level: `push-relay serve` killed with SIGKILL in the middle of a fan-out
/// loses nothing, and the next start on the same database sends again at most what was in flight
/// (`delivery.concurrency`), however many results the old batching would have held unwritten.
@Suite struct ServeCrashTests {
    static let devices = 800
    /// Well below the 500 results a batch could hold before results were written as they came.
    static let concurrency = 8

    @Test func sigkillMidFanOutResendsAtMostWhatWasInFlight() async throws {
        // A busy machine may wake the test only after the whole room went out: then the crash window was not
        // reached, and the run is made again (at most three times) rather than passing without it.
        for attempt in 1...3 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            if try await crashRun(in: directory) { return }
            print("ServeCrashTests: attempt \(attempt) sent the whole room before the kill; again")
        }
        Issue.record("three runs sent the whole room before the kill")
    }

    /// One run; false when the kill came after the whole room was sent (nothing to check).
    func crashRun(in directory: TemporaryDirectory) async throws -> Bool {
        let run = FanOutRun(devices: Self.devices)
        let first = try FanOutRun.serve(in: directory, concurrency: Self.concurrency, name: "first")
        var (client, notificationId) = try await run.start(on: first)
        // Killed once a good part of the room went out, while the rest is being sent.
        let deadline = ContinuousClock.now + .seconds(60)
        // Lines counted without reading them: the last one may be half written while the relay runs.
        while first.stdoutLines.count(where: { $0.hasPrefix("mock APNs accepted ") }) < Self.devices / 4 {
            try #require(ContinuousClock.now < deadline, "the fan-out did not get going")
            try await Task.sleep(for: .milliseconds(5))
        }
        first.signal(SIGKILL)
        let killed = try await first.exitStatus()
        #expect(!killed.exited && killed.status == SIGKILL, "\(killed)")
        let sentBeforeKill = try FanOutRun.sends(in: first.stdoutLines).count
        guard sentBeforeKill < Self.devices else { return false }

        let second = try FanOutRun.serve(in: directory, concurrency: Self.concurrency, name: "second")
        client.port = try await second.listeningPort()
        let counts = try await run.settle(client, notificationId)
        second.signal(SIGTERM)
        _ = try await second.exitStatus()
        #expect(counts["sent"] as? Int == Self.devices)

        let seen = try FanOutRun.sends(in: first.stdoutLines + second.stdoutLines)
        #expect(Set(seen.keys) == run.suffixes, "\(run.suffixes.subtracting(seen.keys).count) devices never sent")
        let resent = seen.values.reduce(0) { $0 + $1 - 1 }
        #expect(resent <= Self.concurrency, "\(resent) pushes sent twice (\(sentBeforeKill) before the kill)")
        #expect(seen.values.allSatisfy { $0 <= 2 })
        return true
    }
}
