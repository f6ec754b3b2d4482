import Foundation
import RelayTestSupport
import Testing

/// scripts/test-servers.sh, which `make test` runs the tests under: every server a run lists is stopped when
/// the run ends, also when it fails, the run's temporary files go with it, and what an earlier run left behind
/// is swept at the next start.
@Suite struct TestServersScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/test-servers.sh").standardizedFileURL.path

    /// Runs the script with `command` under a TMPDIR of its own; returns its exit status.
    func run(_ command: String, tmp: String) throws -> ChildProcess.Termination {
        try start(command, tmp: tmp).waitForExit()
    }

    /// The script running `command` under a TMPDIR of its own.
    func start(_ command: String, tmp: String) throws -> ChildProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp
        return try ChildProcess("/bin/bash", [Self.script, "/bin/sh", "-c", command], environment: environment)
    }

    /// Whether process `pid` has ended (gone, or a zombie its new parent has not reaped yet).
    static func hasEnded(_ pid: String) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ") ", options: .backwards)
        else { return true }
        return stat[end.upperBound...].hasPrefix("Z")
    }

    /// Waits up to 10 seconds for `path` to exist.
    static func appears(_ path: String) -> Bool {
        for _ in 0..<100 {
            if FileManager.default.fileExists(atPath: path) { return true }
            usleep(100_000)
        }
        return false
    }

    func temporaryFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tss-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aFailedRunStillStopsTheServersItListed() throws {
        let tmp = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let stopped = "\(tmp)/stopped"
        let status = try run(#"echo "touch \#(stopped)" > "$PUSH_RELAY_TEST_SERVERS/one.stop"; exit 3"#, tmp: tmp)
        #expect(status == .exited(3))
        #expect(FileManager.default.fileExists(atPath: stopped))
        let left = try FileManager.default.contentsOfDirectory(atPath: "\(tmp)/push-relay-test-runs")
        #expect(left.isEmpty, "\(left)")
    }

    /// A process the run started in a process group of its own and never stopped (as a crashed test process
    /// leaves its servers) is killed when the run ends.
    @Test func whatTheRunLeftRunningIsKilled() throws {
        let tmp = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let pidFile = "\(tmp)/pid"
        let command = #"exec /bin/bash -c 'set -m; sleep 300 & echo $! > \#(pidFile); exit 3'"#
        #expect(try run(command, tmp: tmp) == .exited(3))
        let pid = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!pid.isEmpty)
        #expect(Self.hasEnded(pid), "sleep \(pid) still runs")
    }

    /// A run cut short (TERM) passes an interrupt on to its command, as Ctrl-C at a terminal would, before
    /// it stops the servers.
    @Test func aRunCutShortInterruptsItsCommand() throws {
        let tmp = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let ready = "\(tmp)/ready"
        let interrupted = "\(tmp)/interrupted"
        let command = #"trap 'touch \#(interrupted); exit 9' INT; touch \#(ready); while :; do sleep 0.1; done"#
        let script = try start(command, tmp: tmp)
        #expect(Self.appears(ready))
        script.signal(SIGTERM)
        #expect(script.waitForExit() == .exited(143))
        #expect(FileManager.default.fileExists(atPath: interrupted))
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(tmp)/push-relay-test-runs").isEmpty)
    }

    @Test func theRunsTemporaryFilesAreRemovedWithIt() throws {
        let tmp = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let seen = "\(tmp)/seen"
        let command = #"echo "$TMPDIR" > \#(seen); touch "$TMPDIR/config.json" && [ -d "$PUSH_RELAY_TEST_SERVERS" ]"#
        #expect(try run(command, tmp: tmp) == .exited(0))
        let runTemporary = try String(contentsOfFile: seen, encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(runTemporary.hasPrefix("\(tmp)/push-relay-test-runs/"))
        #expect(!FileManager.default.fileExists(atPath: runTemporary))
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(tmp)/push-relay-test-runs").isEmpty)
    }

    @Test func aRunSweepsWhatAGoneRunLeft() throws {
        let tmp = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        // A run folder whose runner (a process id that cannot exist) is gone, its server never stopped.
        let stale = "\(tmp)/push-relay-test-runs/2147483646"
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
        let stopped = "\(tmp)/stale-stopped"
        try "touch \(stopped)\n".write(toFile: "\(stale)/old.stop", atomically: true, encoding: .utf8)
        #expect(try run("true", tmp: tmp) == .exited(0))
        #expect(FileManager.default.fileExists(atPath: stopped))
        #expect(!FileManager.default.fileExists(atPath: stale))
    }
}
