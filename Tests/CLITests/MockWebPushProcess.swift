import Foundation
import RelayTestSupport

/// `push-relay mock-webpush` as a process (``RelayTestSupport/MockProcess``), its subscriptions in a
/// directory of the test's; with a subscription and a VAPID key made by the CLI as a developer makes them
/// (`mock-webpush --new-subscription`, `keys vapid`).
struct MockWebPushProcess {
    let server: MockProcess
    let subscriptions: String
    /// A subscription of this mock, as `--new-subscription` printed it.
    let subscriptionFile: String
    /// A VAPID private key (PEM) from `keys vapid`.
    let vapidKeyFile: String

    /// Starts the mock in `directory`, waits until it listens, and makes a subscription and a VAPID key.
    /// - Parameter tls: TLS with fixtures/tls (true) or h2c.
    init(in directory: URL, tls: Bool, arguments: [String] = []) async throws {
        subscriptions = directory.appendingPathComponent("subscriptions").path
        subscriptionFile = directory.appendingPathComponent("subscription.json").path
        vapidKeyFile = directory.appendingPathComponent("vapid.pem").path
        server = try await MockProcess(
            "mock-webpush",
            title: "mock Web Push",
            in: directory,
            tls: tls,
            arguments: ["--subscriptions", subscriptions] + arguments
        )
        let made = try await CommandTests.run(
            ["mock-webpush", "--new-subscription", "--url", server.baseURL, "--subscriptions", subscriptions]
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
    /// `count`.
    func recorded(count: Int) async throws -> [[String: Any]] {
        try await server.recordedLines(count: count).map { line in
            guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
                throw TestFailure(description: "record line is not an object: \(String(decoding: line, as: UTF8.self))")
            }
            return object
        }
    }
}
