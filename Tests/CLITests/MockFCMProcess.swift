import Foundation
import RelayTestSupport

/// `push-relay mock-fcm` as a process (``RelayTestSupport/MockProcess``), with a service account it made
/// for itself (its key file written to ``accountFile``, `token_uri` at the mock).
struct MockFCMProcess {
    /// The project of the mock's service account.
    static let project = "chat-app-1234"

    let server: MockProcess
    let accountFile: String

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
        server = try await MockProcess(
            "mock-fcm",
            title: "mock FCM",
            in: directory,
            tls: tls,
            arguments: ["--new-service-account", accountFile, "--project", Self.project] + arguments
        )
        _ = try await server.process.line(startingWith: "mock FCM service account written to \(accountFile)")
    }

    /// The messages answered so far, oldest first, once there are at least `count`.
    func recorded(count: Int) async throws -> [Recorded] {
        try await server.recordedLines(count: count).map { try JSONDecoder().decode(Recorded.self, from: $0) }
    }
}
