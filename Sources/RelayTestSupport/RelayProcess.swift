import Foundation
import RelayTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The package root, found from this file.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardized

/// A failure of the process harness itself (a deadline passed, an unexpected answer).
struct ProcessHarnessError: Error, CustomStringConvertible {
    var description: String
}

/// The built `push-relay` binary: beside the running test binary (SwiftPM puts both in the same build
/// folder), else `.build/debug/push-relay`.
func pushRelayBinary() throws -> URL {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let candidates = [
        testBinary.deletingLastPathComponent().appendingPathComponent("push-relay"),
        packageRoot.appendingPathComponent(".build/debug/push-relay"),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw ProcessHarnessError(description: "push-relay not built; looked at \(candidates.map(\.path))")
    }
    return found
}

/// A temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// One run of `push-relay` with stdout and stderr in files (nothing to drain, so the process never blocks on
/// a full pipe). Used from one task only; killed (SIGKILL) on deinit if still running.
final class RelayProcess {
    let process: ChildProcess
    let stdoutURL: URL
    let stderrURL: URL

    /// Starts `push-relay arguments...` in the package root (so the in-process mock finds fixtures/tls) with
    /// the caller's environment minus every `PUSH_RELAY_*` variable, plus `environment`; through `launcher`
    /// (a program and its arguments, e.g. `prlimit --nofile=...`) when given.
    init(
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

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// The first stdout line starting with `prefix` (the rest of it), waiting up to `timeout`.
    func line(startingWith prefix: String, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = stdoutLines.first(where: { $0.hasPrefix(prefix) }) {
                return String(line.dropFirst(prefix.count))
            }
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw ProcessHarnessError(
                    description:
                        "no line '\(prefix)…' (running: \(process.isRunning))\nstdout:\n\(stdout)\nstderr:\n\(stderr)"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The port of `PushRelay listening on http://HOST:PORT`.
    func listeningPort() async throws -> Int {
        let address = try await line(startingWith: "PushRelay listening on ")
        guard let port = URL(string: address)?.port else {
            throw ProcessHarnessError(description: "no port in '\(address)'")
        }
        return port
    }

    func signal(_ number: Int32) { process.signal(number) }

    /// Waits for the process to exit, at most `timeout`; on timeout kills it and throws.
    func exitStatus(timeout: Duration = .seconds(60)) async throws -> (status: Int32, exited: Bool) {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.signal(SIGKILL)
                throw ProcessHarnessError(description: "push-relay did not exit in time\nstderr:\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        switch process.waitForExit() {
        case .exited(let status): return (status, true)
        case .signalled(let signal): return (signal, false)
        }
    }
}

/// A JSON API client for a relay process on 127.0.0.1.
struct RelayClient {
    var port: Int
    var apiKey: String

    /// Sends one request with `Authorization: Bearer <apiKey>`; returns the status and the body.
    func call(_ method: String, _ path: String, json: [String: Any]? = nil) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 30
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw ProcessHarnessError(description: "not HTTP") }
        return (http.statusCode, data)
    }

    /// The answer as a JSON object, requiring `status`.
    func object(
        _ method: String,
        _ path: String,
        json: [String: Any]? = nil,
        status: Set<Int>
    ) async throws
        -> [String: Any]
    {
        let (code, body) = try await call(method, path, json: json)
        guard status.contains(code), let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw ProcessHarnessError(
                description: "\(method) \(path): \(code) \(String(decoding: body, as: UTF8.self))"
            )
        }
        return object
    }
}
