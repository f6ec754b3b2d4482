import RelayCore
import Testing

/// What `config check` prints and `serve` logs as likely mistakes: an app whose pushes of some platform would
/// go to the in-process mocks (accepted, counted sent, reaching no device) beside credentials for another
/// platform or beyond loopback (a development app on loopback is not warned of), the development app on
/// PostgreSQL, and per-app lanes as wide as all.
@Suite struct ConfigurationWarningTests {
    static func app(_ id: String, apns: Bool = false, fcm: Bool = false, web: Bool = false) -> Configuration.App {
        var app = Configuration.App(
            id: id,
            topic: "com.example.\(id)",
            apiKeySHA256: [String(repeating: "a", count: 64)]
        )
        if apns { app.apns.credentials = .init(keyFile: "/keys/apns.p8", keyId: "ABC123DEFG", teamId: "TEAM123456") }
        if fcm { app.fcm = .init(serviceAccountFile: "/keys/firebase.json") }
        if web { app.webPush = .init(vapidKeyFile: "/keys/vapid.pem") }
        return app
    }

    static func warnings(_ apps: [Configuration.App], host: String = "127.0.0.1") -> [String] {
        var configuration = Configuration()
        configuration.http.host = host
        configuration.apps = apps
        return configuration.warnings
    }

    @Test func anAppWithCredentialsForOtherPlatformsIsWarnedOfItsMockedOnes() {
        let warnings = Self.warnings([Self.app("android-only", fcm: true), Self.app("full", apns: true)])
        #expect(
            warnings == [
                "app 'android-only' sends its ios, web pushes to an in-process mock, where they count as sent and "
                    + "reach no device (no apps[0].apns.credentials, apps[0].webPush.vapidKeyFile): mocks are for "
                    + "development"
            ]
        )
    }

    @Test func anAppWithoutCredentialsIsWarnedOfOnlyBeyondLoopback() {
        #expect(Self.warnings([Self.app("dev")]).isEmpty)
        #expect(Self.warnings([Self.app("dev")], host: "::1").isEmpty)
        let open = Self.warnings([Self.app("dev")], host: "0.0.0.0")
        #expect(open.count == 1)
        #expect(open.first?.hasPrefix("app 'dev' sends its ios, android, web pushes to an in-process mock") == true)
    }

    /// Without apps `serve` runs the development app: on PostgreSQL, a database relays share, that is warned of.
    @Test func theDevelopmentAppOnPostgreSQLIsWarnedOf() {
        var configuration = Configuration()
        #expect(configuration.warnings.isEmpty)
        configuration.storage.postgres.url = "postgresql://relay@db/relay"
        #expect(configuration.warnings.count == 1)
        #expect(
            configuration.warnings.first?.hasPrefix("apps: none configured, so serve runs the development app") == true
        )
        configuration.apps = [Self.app("full", apns: true)]
        #expect(configuration.warnings.isEmpty)
    }

    /// Per-app lanes as wide as the whole leave no slot to the other apps when one push service is slow.
    @Test func aLaneAsWideAsAllIsWarnedOfWithSeveralApps() {
        var configuration = Configuration()
        configuration.apps = [Self.app("one", apns: true), Self.app("two", apns: true)]
        #expect(configuration.warnings.isEmpty)
        configuration.delivery.perAppConcurrency = configuration.delivery.concurrency
        #expect(configuration.warnings.count == 1)
        #expect(configuration.warnings.first?.hasPrefix("delivery.perAppConcurrency (300) is not less than") == true)
        configuration.apps.removeLast()
        #expect(configuration.warnings.isEmpty)
    }

    /// With APNs credentials and no `fcm` or `webPush`, the app has no Android or web devices: nothing is mocked.
    @Test func anAppWithAPNsCredentialsAloneMocksNothing() {
        #expect(Self.app("ios-only", apns: true).developmentMocks.isEmpty)
        #expect(Self.warnings([Self.app("ios-only", apns: true)], host: "0.0.0.0").isEmpty)
        #expect(Self.app("dev").developmentMocks == [.ios, .android, .web])
    }
}
