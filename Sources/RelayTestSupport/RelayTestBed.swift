import APNsMock
import FCMMock
import Foundation
import RelayCore
import RelayCrypto

/// The repository's fixtures folder, found from this file.
public let fixturesDirectory = packageRoot.appendingPathComponent("fixtures")

/// One configured app of a test bed: its id, topic and plain API key.
public struct TestApp: Sendable {
    public var id: String
    public var topic: String
    public var apiKey: String

    public init(id: String, topic: String, apiKey: String) {
        self.id = id
        self.topic = topic
        self.apiKey = apiKey
    }
}

/// What a relay under test starts from: a temporary directory, a generated provider key, a mock APNs over
/// TLS that trusts it, and a relay configuration (SQLite file in the directory, quick retries) with
/// `appCount` apps (`app0`, `app1`, …) sending to that mock.
public struct RelayTestBed: Sendable {
    /// The provider key's id and team the mock APNs trusts.
    public static let keyId = "TESTKEY001"
    public static let teamId = "TESTTEAM01"
    /// Every app's `ttlSeconds`.
    public static let ttlSeconds = 3600

    public var directory: URL
    public var mock: MockAPNsServer
    /// The mock FCM every app's Android pushes go to.
    public var fcm: MockFCMServer
    public var apps: [TestApp]
    /// The public half of the provider key the relay signs with.
    public var providerKey: ES256Key
    public var configuration: Configuration

    /// A relay on this bed's configuration (its store in ``directory`` unless the configuration names a
    /// PostgreSQL database), its gauges read every 500 ms; not started.
    public func testRelay(
        mode: TestRelay.Mode = .live,
        store: TestRelay.StoreChoice = .configured(),
        options: TestRelay.Options = TestRelay.Options(gaugeInterval: .milliseconds(500))
    ) -> TestRelay {
        TestRelay(configuration: configuration, mode: mode, store: store, options: options, directory: directory)
    }
}

/// Makes a ``RelayTestBed`` (its configuration changed by `configure`), runs `body`, and always stops the mock
/// and removes the directory.
public func withRelayTestBed(
    appCount: Int,
    script: MockScript,
    configure: (inout Configuration) -> Void,
    _ body: (RelayTestBed) async throws -> Void
) async throws {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("relay-e2e-\(UUID().uuidString.lowercased())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    let key = try ES256Key.generate()
    let keyPath = directory.appendingPathComponent("AuthKey_\(RelayTestBed.keyId).p8").path
    try Data((key.privateKeyPEM ?? "").utf8).write(to: URL(fileURLWithPath: keyPath))
    let publicKey = try ES256Key(publicKeyPEM: key.publicKeyPEM)

    let apps = try (0..<appCount).map { index in
        TestApp(id: "app\(index)", topic: "com.example.chat\(index)", apiKey: try APIKey.generate())
    }
    let tls = fixturesDirectory.appendingPathComponent("tls")
    var mockConfiguration = MockAPNsConfiguration(
        tls: .init(
            certificatePath: tls.appendingPathComponent("server.pem").path,
            privateKeyPath: tls.appendingPathComponent("server.key").path
        ),
        providerKeys: [RelayTestBed.keyId: (teamId: RelayTestBed.teamId, key: publicKey)],
        allowedTopics: Set(apps.map(\.topic)),
        environment: .sandbox,
        script: script
    )
    mockConfiguration.port = 0
    let mock = MockAPNsServer(configuration: mockConfiguration)
    try mock.start()
    defer { mock.stop() }
    let (fcm, fcmSettings) = try startMockFCM(in: directory, tls: tls)
    defer { fcm.stop() }

    var configuration = Configuration()
    configuration.http.host = "127.0.0.1"
    configuration.http.port = 0
    configuration.storage.sqlitePath = directory.appendingPathComponent("relay.sqlite").path
    configuration.delivery.retry = RetryPolicy(maxAttempts: 3, baseDelayMilliseconds: 50, maxDelayMilliseconds: 200)
    configuration.delivery.pollIntervalMilliseconds = 50
    configuration.delivery.requestTimeoutMilliseconds = 10_000
    configuration.delivery.connectTimeoutMilliseconds = 5000
    configuration.log.level = .critical
    configuration.apps = apps.map { app in
        Configuration.App(
            id: app.id,
            topic: app.topic,
            apiKeySHA256: [APIKey.hash(app.apiKey)],
            apns: .init(
                credentials: .init(keyFile: keyPath, keyId: RelayTestBed.keyId, teamId: RelayTestBed.teamId),
                endpoints: .init(
                    both: .init(
                        baseURL: "https://127.0.0.1:\(mock.port)",
                        caFile: tls.appendingPathComponent("ca.pem").path
                    )
                )
            ),
            fcm: fcmSettings,
            ttlSeconds: RelayTestBed.ttlSeconds
        )
    }
    configure(&configuration)
    try await body(
        RelayTestBed(
            directory: directory,
            mock: mock,
            fcm: fcm,
            apps: apps,
            providerKey: publicKey,
            configuration: configuration
        )
    )
}

/// The service account every test bed's mock FCM trusts: a fixture, since generating an RSA key would hold a
/// thread of the cooperative pool (every test waits on a global's first use) for a second or more.
public let testFCMAccount = try! FCMServiceAccount(
    contentsOfFile: fixturesDirectory.appendingPathComponent("fcm/test-service-account.json").path
)

/// Starts a mock FCM over TLS trusting ``testFCMAccount``, and writes that account, its `token_uri` the
/// mock's, into `directory`: the FCM settings an app sends through it with.
public func startMockFCM(in directory: URL, tls: URL) throws -> (MockFCMServer, Configuration.FCM) {
    let fcm = MockFCMServer(
        configuration: MockFCMConfiguration(
            tls: .init(
                certificatePath: tls.appendingPathComponent("server.pem").path,
                privateKeyPath: tls.appendingPathComponent("server.key").path
            ),
            accounts: [try MockFCMAccount(serviceAccount: testFCMAccount)],
            recordInMemory: true
        )
    )
    try fcm.start()
    let base = "https://127.0.0.1:\(fcm.port)"
    var account = testFCMAccount
    account.tokenURI = base + MockFCMConfiguration.tokenPath
    let file = directory.appendingPathComponent("fcm-service-account.json")
    try account.encoded().write(to: file)
    let settings = Configuration.FCM(
        serviceAccountFile: file.path,
        endpoint: .init(baseURL: base, caFile: tls.appendingPathComponent("ca.pem").path)
    )
    return (fcm, settings)
}
