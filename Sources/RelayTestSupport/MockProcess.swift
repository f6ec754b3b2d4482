import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A mock push service of the CLI (`push-relay mock-fcm`, `mock-webpush`) run as a process on port 0, every
/// answered request recorded to a file: started, its URL read from its "listening on" line, its record
/// file's lines read, stopped with SIGTERM.
public struct MockProcess: Sendable {
    /// The CA that signed the mocks' TLS certificate (fixtures/tls).
    public static let caFile = packageRoot.appendingPathComponent("fixtures/tls/ca.pem").path

    public let process: RelayProcess
    /// `http://127.0.0.1:PORT` (h2c) or `https://127.0.0.1:PORT` (TLS with the fixture certificate).
    public let baseURL: String
    /// The file the mock appends one JSON line to per answered request.
    public let recordFile: String
    /// How the mock names itself in its output, e.g. `mock FCM`.
    public let title: String

    /// Starts `push-relay command --port 0 --record <directory>/<command>-record.jsonl arguments...` in
    /// `directory` (with `--h2c` unless `tls`: TLS with fixtures/tls) and waits until it prints
    /// `<title> listening on URL`.
    /// - Throws: ``TestFailure`` when it does not listen within 60 s or prints no URL.
    public init(_ command: String, title: String, in directory: URL, tls: Bool, arguments: [String]) async throws {
        self.title = title
        recordFile = directory.appendingPathComponent("\(command)-record.jsonl").path
        process = try RelayProcess(
            [command, "--port", "0", "--record", recordFile] + (tls ? [] : ["--h2c"]) + arguments,
            outputIn: directory,
            name: command
        )
        let listening = try await process.line(startingWith: "\(title) listening on ")
        guard let base = listening.split(separator: " ").first.map(String.init) else {
            throw TestFailure(description: "no URL in '\(title) listening on \(listening)'")
        }
        baseURL = base
    }

    /// The record file's lines so far, oldest first, once there are at least `count` (waiting up to 60 s:
    /// a line is written as its answer goes out).
    /// - Throws: ``TestFailure`` when fewer lines are there after 60 s.
    public func recordedLines(count: Int) async throws -> [Data] {
        var lines: [Substring] = []
        try await waitUntil("\(title) to record \(count) requests") {
            lines = ((try? String(contentsOfFile: recordFile, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.count >= count
        }
        return lines.map { Data($0.utf8) }
    }

    /// Stops the mock with SIGTERM and returns its exit status.
    public func stop() async throws -> Int32 {
        process.signal(SIGTERM)
        return try await process.exitStatus().status
    }
}
