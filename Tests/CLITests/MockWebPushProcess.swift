import Foundation
import RelayTestSupport

/// `push-relay mock-webpush` as a process on port 0, its subscriptions in a directory of the test's, every
/// answered push recorded to a file; with a subscription and a VAPID key made by the CLI as a developer
/// makes them (`mock-webpush --new-subscription`, `keys vapid`).
struct MockWebPushProcess {
    /// The CA that signed the mock's TLS certificate.
    static let caFile = packageRoot.appendingPathComponent("fixtures/tls/ca.pem").path

    let process: RelayProcess
    /// `http://127.0.0.1:PORT` (h2c) or `https://127.0.0.1:PORT` (TLS with the fixture certificate).
    let baseURL: String
    let subscriptions: String
    let recordFile: String
    /// A subscription of this mock, as `--new-subscription` printed it.
    let subscriptionFile: String
    /// A VAPID private key (PEM) from `keys vapid`.
    let vapidKeyFile: String

    /// Starts the mock in `directory`, waits until it listens, and makes a subscription and a VAPID key.
    /// - Parameter tls: TLS with fixtures/tls (true) or h2c.
    init(in directory: URL, tls: Bool, arguments: [String] = []) async throws {
        subscriptions = directory.appendingPathComponent("subscriptions").path
        recordFile = directory.appendingPathComponent("webpush-record.jsonl").path
        subscriptionFile = directory.appendingPathComponent("subscription.json").path
        vapidKeyFile = directory.appendingPathComponent("vapid.pem").path
        process = try RelayProcess(
            ["mock-webpush", "--port", "0", "--subscriptions", subscriptions, "--record", recordFile]
                + (tls ? [] : ["--h2c"]) + arguments,
            outputIn: directory,
            name: "mock-webpush"
        )
        let listening = try await process.line(startingWith: "mock Web Push listening on ")
        guard let base = listening.split(separator: " ").first.map(String.init) else {
            throw TestFailure(description: "no URL in 'mock Web Push listening on \(listening)'")
        }
        baseURL = base
        let made = try await CommandTests.run(
            ["mock-webpush", "--new-subscription", "--url", base, "--subscriptions", subscriptions]
        )
        guard made.status == 0 else { throw TestFailure(description: "--new-subscription: \(made.stderr)") }
        try Data(made.stdout.utf8).write(to: URL(fileURLWithPath: subscriptionFile))
        let key = try await CommandTests.run(["keys", "vapid", "--out", vapidKeyFile])
        guard key.status == 0 else { throw TestFailure(description: "keys vapid: \(key.stderr)") }
    }

    /// The subscription's endpoint.
    func endpoint() throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: subscriptionFile)))
        guard let endpoint = (object as? [String: Any])?["endpoint"] as? String else {
            throw TestFailure(description: "no endpoint in \(subscriptionFile)")
        }
        return endpoint
    }

    /// The pushes answered so far (record file lines as JSON objects), oldest first, once there are at least
    /// `count` (waiting up to 60 s: the record line is written as the answer goes out).
    func recorded(count: Int) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let text = (try? String(contentsOfFile: recordFile, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n")
            if lines.count >= count {
                return try lines.map { line in
                    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                        throw TestFailure(description: "record line is not an object: \(line)")
                    }
                    return object
                }
            }
            guard ContinuousClock.now < deadline else {
                throw TestFailure(description: "mock Web Push recorded \(lines.count) of \(count) pushes")
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
