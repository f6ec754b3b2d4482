import Foundation
import RelayTestSupport

/// `push-relay mock-fcm` as a process on port 0, with a service account it made for itself (its key file
/// written to ``accountFile``, `token_uri` at the mock) and every answered message recorded to a file.
struct MockFCMProcess {
    /// The project of the mock's service account.
    static let project = "chat-app-1234"
    /// The CA that signed the mock's TLS certificate.
    static let caFile = packageRoot.appendingPathComponent("fixtures/tls/ca.pem").path

    let process: RelayProcess
    /// `http://127.0.0.1:PORT` (h2c) or `https://127.0.0.1:PORT` (TLS with the fixture certificate).
    let baseURL: String
    let accountFile: String
    let recordFile: String

    /// One message the mock answered, as its record file holds it.
    struct Recorded: Decodable {
        var token: String?
        /// The request body as received.
        var body: String
        var status: Int
        var errorCode: String?
    }

    /// Starts the mock in `directory` and waits until it listens and has written its service account.
    /// - Parameter tls: TLS with fixtures/tls (true) or h2c.
    init(in directory: URL, tls: Bool, arguments: [String] = []) async throws {
        accountFile = directory.appendingPathComponent("fcm-account.json").path
        recordFile = directory.appendingPathComponent("fcm-record.jsonl").path
        process = try RelayProcess(
            ["mock-fcm", "--port", "0", "--new-service-account", accountFile, "--project", Self.project]
                + ["--record", recordFile] + (tls ? [] : ["--h2c"]) + arguments,
            outputIn: directory,
            name: "mock-fcm"
        )
        let listening = try await process.line(startingWith: "mock FCM listening on ")
        guard let base = listening.split(separator: " ").first.map(String.init) else {
            throw TestFailure(description: "no URL in 'mock FCM listening on \(listening)'")
        }
        baseURL = base
        _ = try await process.line(startingWith: "mock FCM service account written to \(accountFile)")
    }

    /// The messages answered so far, oldest first, once there are at least `count` (waiting up to 30 s: the
    /// record line is written as the answer goes out).
    func recorded(count: Int) async throws -> [Recorded] {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let text = (try? String(contentsOfFile: recordFile, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n")
            if lines.count >= count {
                return try lines.map { try JSONDecoder().decode(Recorded.self, from: Data($0.utf8)) }
            }
            guard ContinuousClock.now < deadline else {
                throw TestFailure(description: "mock FCM recorded \(lines.count) of \(count) messages")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops the mock with SIGTERM and returns its exit status.
    func stop() async throws -> Int32 {
        process.signal(SIGTERM)
        return try await process.exitStatus().status
    }
}
