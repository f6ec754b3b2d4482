import Foundation

/// The package root, found from this file.
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardized

/// The built `push-relay` binary: beside the running test binary (SwiftPM puts both in the same build
/// folder), else `.build/debug/push-relay`.
public func pushRelayBinary() throws -> URL {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let candidates = [
        testBinary.deletingLastPathComponent().appendingPathComponent("push-relay"),
        packageRoot.appendingPathComponent(".build/debug/push-relay"),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw TestFailure(description: "push-relay not built; looked at \(candidates.map(\.path))")
    }
    return found
}

/// One run of `push-relay` with stdout and stderr in files (nothing to drain, so the process never blocks on
/// a full pipe). Killed (SIGKILL) on deinit if still running. `Sendable`: every property is immutable.
public final class RelayProcess: Sendable {
    public let process: ChildProcess
    public let stdoutURL: URL
    public let stderrURL: URL

    /// Starts `push-relay arguments...` in the package root (so the in-process mock finds fixtures/tls) with
    /// the caller's environment minus every `PUSH_RELAY_*` variable, plus `environment`; through `launcher`
    /// (a program and its arguments, e.g. `prlimit --nofile=...`) when given.
    public init(
        _ arguments: [String],
        environment: [String: String] = [:],
        launcher: [String] = [],
        outputIn directory: URL,
        name: String
    ) throws {
        stdoutURL = directory.appendingPathComponent("\(name).stdout")
        stderrURL = directory.appendingPathComponent("\(name).stderr")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        let command = launcher + [try pushRelayBinary().path] + arguments
        var inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSH_RELAY_") }
        inherited.merge(environment) { $1 }
        process = try ChildProcess(
            command[0],
            Array(command.dropFirst()),
            environment: inherited,
            directory: packageRoot.path,
            standardOutput: stdoutURL.path,
            standardError: stderrURL.path
        )
    }

    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// The first stdout line starting with `prefix` (the rest of it), waiting up to `timeout`.
    public func line(startingWith prefix: String, timeout: Duration = .seconds(60)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = stdoutLines.first(where: { $0.hasPrefix(prefix) }) {
                return String(line.dropFirst(prefix.count))
            }
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw TestFailure(
                    description:
                        "no line '\(prefix)…' (running: \(process.isRunning))\nstdout:\n\(stdout)\nstderr:\n\(stderr)"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The port of `PushRelay listening on http://HOST:PORT`.
    public func listeningPort() async throws -> Int {
        let address = try await line(startingWith: "PushRelay listening on ")
        guard let port = URL(string: address)?.port else {
            throw TestFailure(description: "no port in '\(address)'")
        }
        return port
    }

    public func signal(_ number: Int32) { process.signal(number) }

    /// Waits for the process to exit, at most `timeout`; on timeout kills it and throws.
    public func exitStatus(timeout: Duration = .seconds(60)) async throws -> (status: Int32, exited: Bool) {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.signal(SIGKILL)
                throw TestFailure(description: "push-relay did not exit in time\nstderr:\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        switch process.waitForExit() {
        case .exited(let status): return (status, true)
        case .signalled(let signal): return (signal, false)
        }
    }
}
