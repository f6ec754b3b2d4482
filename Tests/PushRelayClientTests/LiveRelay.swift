import APNsMock
import Foundation
import RelayCore
import RelayCrypto
import RelayServer
import RelayStore
import RelayTestSupport
import Testing

@testable import PushRelayClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real relay on 127.0.0.1 port 0 (SQLite file in a temporary directory) with one app, sending over
/// h2c to a real mock APNs, and a ``RelayFront`` before it that the clients talk to.
struct LiveRelay: Sendable {
    static let appId = "chat"
    static let topic = "com.example.chat"

    /// The relay under test, live on a socket.
    let testRelay: TestRelay
    let mock: MockAPNsServer
    let front: RelayFront
    /// The app's API key: what the backend sends, and today also the user credential (``TestCredential``).
    let apiKey: String

    /// Quick retries: 4 attempts, 10 ms doubling, waits of at most 2 s.
    static let quickRetry = PushRelayClient.RetryPolicy(
        maxAttempts: 4,
        baseDelay: 0.01,
        maxDelay: 2,
        requestTimeout: 10
    )

    /// A client for `userId` talking to the front; its waits are kept in `sleeps`.
    func client(
        userId: String,
        environment: PushRelayClient.Environment = .production,
        retry: PushRelayClient.RetryPolicy = quickRetry,
        sleeps: SleepLog = SleepLog(),
        credential: PushRelayClient.Credential? = nil
    ) -> PushRelayClient {
        let baseURL = URL(string: "http://127.0.0.1:\(front.port)")!
        let credential = credential ?? { _ in TestCredential.valid(for: userId, in: self) }
        return PushRelayClient(
            baseURL: baseURL,
            appId: Self.appId,
            userId: userId,
            environment: environment,
            transport: RelayTransport(
                baseURL: baseURL,
                appId: Self.appId,
                session: .shared,
                retry: retry,
                credential: credential,
                sleep: sleeps.sleep
            )
        )
    }

    // MARK: What the relay stored, read with the API key

    /// `GET /v1/users/{userId}/devices`: each device's token and environment.
    func devices(of userId: String) async throws -> [(token: String, environment: String)] {
        struct Devices: Decodable {
            struct Device: Decodable {
                var token: String
                var environment: String
            }
            var devices: [Device]
        }
        return try await backend("/v1/users/\(userId)/devices", as: Devices.self).devices.map {
            ($0.token, $0.environment)
        }
    }

    /// `GET /v1/rooms/{roomId}/members`.
    func members(of roomId: String) async throws -> [String] {
        struct Members: Decodable { var members: [String] }
        return try await backend("/v1/rooms/\(roomId.pathSegmentEncoded)/members", as: Members.self).members
    }

    /// The payloads the mock APNs accepted for `token` (hex), as JSON objects.
    func pushes(to token: String) throws -> [[String: Any]] {
        try mock.requests.filter { $0.deviceToken == token }.map { request in
            guard let object = try JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
                throw TestFailure(description: "a push body is not a JSON object")
            }
            return object
        }
    }

    private func backend<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
        let answer = try await testRelay.call("GET", path, bearer: apiKey)
        guard answer.status == 200 else { throw TestFailure(description: "GET \(path): \(answer.text)") }
        return try answer.decode(T.self)
    }
}

/// Starts a mock APNs, the relay and a front, runs `body`, and always stops all three and removes the
/// temporary directory.
/// With `ditto`, the app has a stream (`apps[].ditto`).
func withLiveRelay(ditto: Configuration.Ditto? = nil, _ body: (LiveRelay) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("relay-client-\(UUID().uuidString.lowercased())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    let keyId = "CLIENTKEY1"
    let teamId = "CLIENTTEAM"
    let key = try ES256Key.generate()
    let keyPath = directory.appendingPathComponent("AuthKey_\(keyId).p8").path
    try Data((key.privateKeyPEM ?? "").utf8).write(to: URL(fileURLWithPath: keyPath))
    let mock = MockAPNsServer(
        configuration: MockAPNsConfiguration(
            providerKeys: [keyId: (teamId: teamId, key: try ES256Key(publicKeyPEM: key.publicKeyPEM))],
            allowedTopics: [LiveRelay.topic],
            environment: .production
        )
    )
    try mock.start()
    defer { mock.stop() }

    let apiKey = try APIKey.generate()
    var configuration = Configuration()
    configuration.http.host = "127.0.0.1"
    configuration.http.port = 0
    configuration.storage.sqlitePath = directory.appendingPathComponent("relay.sqlite").path
    configuration.delivery.pollIntervalMilliseconds = 50
    configuration.log.level = .critical
    configuration.apps = [
        Configuration.App(
            id: LiveRelay.appId,
            topic: LiveRelay.topic,
            apiKeySHA256: [APIKey.hash(apiKey)],
            apns: .init(
                credentials: .init(keyFile: keyPath, keyId: keyId, teamId: teamId),
                endpoints: .init(both: .init(baseURL: "http://127.0.0.1:\(mock.port)", caFile: nil))
            )
        )
    ]
    configuration.apps[0].userAuth = UserTokenIssuer.shared.userAuth
    configuration.apps[0].ditto = ditto
    try await TestRelay.with(configuration, directory: directory) { relay in
        let front = RelayFront(relayPort: try relay.port)
        do {
            try front.start()
            try await body(LiveRelay(testRelay: relay, mock: mock, front: front, apiKey: apiKey))
        } catch {
            await front.stop()
            throw error
        }
        await front.stop()
    }
}
