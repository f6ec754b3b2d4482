import APNsMock
import Foundation
import MockHTTP2
import RelayCLI
import RelayCore
import RelayCrypto

/// What `serve` needs to run without any Apple or Google credentials: a development app, its API key, and
/// a mock APNs, a mock FCM and a mock Web Push service in this process that check every request as Apple,
/// Google and the browsers' push services do, with keys made for them.
///
/// Files kept in the data directory (created 0700; files 0600): `dev-api-key` (the dev app's API key),
/// `dev-apns-key.p8` (the provider-token key the in-process mock APNs trusts) and
/// `dev-fcm-service-account.json` (the service account the in-process mock FCM trusts), `dev-vapid-key.pem`
/// (the development apps' VAPID key), `webpush-subscriptions/` (the mock push service's subscriptions),
/// `dev-webpush-port` (the port that service listens on, which its subscriptions name) and `dev-user-key.pem`
/// with `dev-user-key.pub.pem` (the key the development app's user tokens are signed with).
struct DevelopmentSetup {
    static let appId = "dev"
    static let topic = "com.example.chat"
    static let keyId = "DEVKEY0001"
    static let teamId = "DEVTEAM001"

    let dataDirectory: String
    let logger: Logger

    init(dataDirectory: String, logger: Logger) throws {
        self.dataDirectory = dataDirectory
        self.logger = logger
        try Folder.make(dataDirectory, permissions: 0o700)
    }

    /// The dev app's API key, made on first use.
    func apiKey() throws -> String {
        try secretFile("dev-api-key") { try APIKey.generate() }.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The development app: topic `com.example.chat`, the key from ``apiKey()``, sandbox, no credentials,
    /// user tokens signed by its own key (``userAuth()``).
    func app() throws -> Configuration.App {
        logger.notice(
            "no apps configured: serving the development app with in-process mocks of APNs, FCM and Web Push",
            ["app.id": Self.appId]
        )
        var app = Configuration.App(id: Self.appId, topic: Self.topic, apiKeySHA256: [APIKey.hash(try apiKey())])
        app.userAuth = try userAuth()
        return app
    }

    /// Starts one in-process mock APNs when some app has neither APNs credentials nor endpoints, and points
    /// those apps at it with a provider-token key it trusts. Returns the mock (nil when none was needed).
    func attachMock(to apps: inout [Configuration.App]) throws -> MockAPNsServer? {
        let needing = apps.indices.filter { apps[$0].developmentMocks.contains(.ios) }
        guard !needing.isEmpty else { return nil }
        let keyPath = dataDirectory + "/dev-apns-key.p8"
        let keyPEM = try secretFile("dev-apns-key.p8") { try ES256Key.generate().privateKeyPEM ?? "" }
        var configuration = MockAPNsConfiguration(
            providerKeys: [Self.keyId: (teamId: Self.teamId, key: try ES256Key(publicKeyPEM: keyPEM))],
            environment: .sandbox,
            recordInMemory: false
        )
        configuration.allowedTopics = Set(needing.map { apps[$0].topic })
        configuration.tls = Self.mockTLS
        configuration.onAccepted = { ConsoleLines.shared.say(MockAPNsCommand.acceptedLine($0)) }
        let mock = MockAPNsServer(configuration: configuration)
        try mock.start()
        let endpoint = Self.mockEndpoint(port: mock.port)
        for index in needing {
            apps[index].apns.endpoints = .init(both: endpoint)
            apps[index].apns.credentials = .init(keyFile: keyPath, keyId: Self.keyId, teamId: Self.teamId)
        }
        logger.notice(
            "in-process mock APNs started",
            ["mock.url": endpoint.baseURL, "apps": needing.map { apps[$0].id }.joined(separator: ",")]
        )
        return mock
    }

    /// The fixture certificate the mocks serve TLS with, when run from the package root; else nil (h2c).
    static let mockTLS: ServerTLS? = {
        let files = [certificateFile, keyFile, caFile]
        guard files.allSatisfy({ FileManager.default.isReadableFile(atPath: $0) }) else { return nil }
        return ServerTLS(certificatePath: certificateFile, privateKeyPath: keyFile)
    }()
    private static let certificateFile = "fixtures/tls/server.pem"
    private static let keyFile = "fixtures/tls/server.key"
    private static let caFile = "fixtures/tls/ca.pem"

    /// Where the relay reaches a mock started on `port` with ``mockTLS``.
    static func mockEndpoint(port: Int) -> Configuration.MockEndpoint {
        Configuration.MockEndpoint(
            baseURL: "\(mockTLS == nil ? "http" : "https")://127.0.0.1:\(port)",
            caFile: mockTLS == nil ? nil : caFile
        )
    }

    /// The content of a 0600 file in the data directory, written by `make` the first time.
    func secretFile(_ name: String, make: () throws -> String) throws -> String {
        let path = dataDirectory + "/" + name
        if let existing = try? String(contentsOfFile: path, encoding: .utf8), !existing.isEmpty { return existing }
        let content = try make()
        try writeSecretFile(name, Data(content.utf8))
        return content
    }

    /// Writes (or replaces) a 0600 file in the data directory; returns its path.
    @discardableResult
    func writeSecretFile(_ name: String, _ content: Data) throws -> String {
        let path = dataDirectory + "/" + name
        try SecretFile.write(content, to: path, replacing: true)
        return path
    }
}
