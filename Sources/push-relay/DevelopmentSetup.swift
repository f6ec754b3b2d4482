import APNsMock
import Foundation
import RelayCLI
import RelayCore
import RelayCrypto

/// What `serve` needs to run without any Apple credentials: a development app, its API key, and a mock
/// APNs in this process that checks every request as Apple does, with a provider-token key made for it.
///
/// Files kept in the data directory (created 0700; files 0600): `dev-api-key` (the dev app's API key) and
/// `dev-apns-key.p8` (the provider-token key the in-process mock trusts).
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
        try FileManager.default.createDirectory(
            atPath: dataDirectory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
    }

    /// The dev app's API key, made on first use.
    func apiKey() throws -> String {
        try secretFile("dev-api-key") { try APIKey.generate() }.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The development app: topic `com.example.chat`, the key from ``apiKey()``, sandbox, no credentials.
    func app() throws -> Configuration.App {
        logger.notice(
            "no apps configured: serving the development app with an in-process mock APNs",
            ["app.id": Self.appId]
        )
        return Configuration.App(id: Self.appId, topic: Self.topic, apiKeySHA256: [APIKey.hash(try apiKey())])
    }

    /// Starts one in-process mock APNs when some app has neither credentials nor a mock endpoint, and points
    /// those apps at it with a provider-token key it trusts. Returns the mock (nil when none was needed).
    func attachMock(to apps: inout [Configuration.App]) throws -> MockAPNsServer? {
        let needing = apps.indices.filter { apps[$0].credentials == nil && apps[$0].mockEndpoint == nil }
        guard !needing.isEmpty else { return nil }
        let keyPath = dataDirectory + "/dev-apns-key.p8"
        let keyPEM = try secretFile("dev-apns-key.p8") { try ES256Key.generate().privateKeyPEM ?? "" }
        var configuration = MockAPNsConfiguration(
            providerKeys: [Self.keyId: (teamId: Self.teamId, key: try ES256Key(publicKeyPEM: keyPEM))],
            environment: .sandbox,
            recordInMemory: false
        )
        configuration.allowedTopics = Set(needing.map { apps[$0].topic })
        let certificate = "fixtures/tls/server.pem", key = "fixtures/tls/server.key", ca = "fixtures/tls/ca.pem"
        let tls = [certificate, key, ca].allSatisfy { FileManager.default.isReadableFile(atPath: $0) }
        if tls { configuration.tls = .init(certificatePath: certificate, privateKeyPath: key) }
        configuration.onAccepted = { say(MockAPNsCommand.acceptedLine($0)) }
        let mock = MockAPNsServer(configuration: configuration)
        try mock.start()
        let endpoint = Configuration.MockEndpoint(
            baseURL: "\(tls ? "https" : "http")://127.0.0.1:\(mock.port)",
            caFile: tls ? ca : nil
        )
        for index in needing {
            apps[index].mockEndpoint = endpoint
            apps[index].credentials = .init(keyFile: keyPath, keyId: Self.keyId, teamId: Self.teamId)
        }
        logger.notice("in-process mock APNs started", ["mock.url": endpoint.baseURL])
        return mock
    }

    /// The content of a 0600 file in the data directory, written by `make` the first time.
    private func secretFile(_ name: String, make: () throws -> String) throws -> String {
        let path = dataDirectory + "/" + name
        if let existing = try? String(contentsOfFile: path, encoding: .utf8), !existing.isEmpty { return existing }
        let content = try make()
        guard
            FileManager.default.createFile(
                atPath: path,
                contents: Data(content.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        return content
    }
}
