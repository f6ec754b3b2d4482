import Foundation
import RelayCore
import Testing

/// `apps[].apns` and `apps[].fcm`: the nested settings, the deprecated flat APNs keys read into them, and
/// their rules, through ``Configuration/load(file:environment:)`` as `serve` and `config check` use it.
@Suite struct PlatformConfigurationTests {
    static let hash = String(repeating: "a", count: 64)

    /// A folder for one test's files, removed at the end.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("platform-config-\(UUID())")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        /// Writes `text` to `name` here; returns its path.
        func write(_ name: String, _ text: String) throws -> String {
            let file = url.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            return file.path
        }

        /// A service account key file as the Firebase console writes it (the key is not a real one: loading
        /// the configuration reads the file, the FCM client parses the key).
        func serviceAccount(projectId: String = "chat-app-1234") throws -> String {
            try write(
                "account-\(projectId).json",
                """
                {"type": "service_account", "project_id": "\(projectId)", "private_key_id": "4f2a9c0b7d1e",
                 "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n",
                 "client_email": "relay@\(projectId).iam.gserviceaccount.com",
                 "token_uri": "https://oauth2.googleapis.com/token"}
                """
            )
        }

        /// `{"apps":[{id, topic, apiKeySHA256, <fields>}]}` written to a file; returns its path.
        func appFile(_ fields: String) throws -> String {
            try write(
                "relay-\(UUID()).json",
                #"{"apps":[{"id":"chat","topic":"com.example.chat","apiKeySHA256":["\#(PlatformConfigurationTests.hash)"],\#(fields)}]}"#
            )
        }
    }

    /// The problems loading `file` (and `environment`) reports; empty when it loads.
    static func problems(_ file: String?, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try Configuration.load(file: file, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func theNestedFormSetsEveryPlatformSetting() throws {
        let folder = try Folder()
        let key = try folder.write("AuthKey.p8", "a key file")
        let account = try folder.serviceAccount()
        let file = try folder.appFile(
            #""apns":{"credentials":{"keyFile":"\#(key)","keyId":"ABC123DEFG","teamId":"TEAM123456"},"#
                + #""defaultEnvironment":"production","endpoints":{"production":{"baseURL":"https://127.0.0.1:2197"},"#
                + #""sandbox":{"baseURL":"http://127.0.0.1:2198"}}},"#
                + #""fcm":{"serviceAccountFile":"\#(account)","projectId":"other-project","#
                + #""endpoint":{"baseURL":"http://127.0.0.1:2199"}}"#
        )
        let (configuration, deprecations) = try Configuration.loadNoticingDeprecations(file: file, environment: [:])
        #expect(deprecations.isEmpty)
        let app = try #require(configuration.apps.first)
        #expect(app.apns.credentials == .init(keyFile: key, keyId: "ABC123DEFG", teamId: "TEAM123456"))
        #expect(app.apns.defaultEnvironment == .production)
        #expect(app.apns.endpoints[.production] == .init(baseURL: "https://127.0.0.1:2197"))
        #expect(app.apns.endpoints[.sandbox] == .init(baseURL: "http://127.0.0.1:2198"))
        #expect(
            app.fcm
                == .init(
                    serviceAccountFile: account,
                    projectId: "other-project",
                    endpoint: .init(baseURL: "http://127.0.0.1:2199")
                )
        )
        #expect(app.ttlSeconds == 86_400)
    }

    @Test func withoutPlatformKeysAnAppHasAPNsDefaultsAndNoFCM() throws {
        let folder = try Folder()
        let app = try #require(
            try Configuration.load(file: try folder.appFile(#""ttlSeconds":60"#), environment: [:]).apps.first
        )
        #expect(app.apns == Configuration.APNs())
        #expect(app.apns.defaultEnvironment == .sandbox && app.apns.credentials == nil && app.apns.endpoints.isEmpty)
        #expect(app.fcm == nil)
    }

    @Test func theEndpointSubscriptReadsAndWritesOneEnvironment() {
        var endpoints = Configuration.APNs.Endpoints()
        endpoints[.sandbox] = .init(baseURL: "http://127.0.0.1:1")
        #expect(endpoints.sandbox?.baseURL == "http://127.0.0.1:1")
        #expect(endpoints.production == nil && endpoints[.production] == nil)
        #expect(!endpoints.isEmpty)
    }

    /// The flat keys of before land in the nested places, each with one notice naming its new key, from a
    /// file and from `PUSH_RELAY_APPS` alike.
    @Test func theFlatKeysAreReadIntoTheNestedPlacesWithANoticeEach() throws {
        let folder = try Folder()
        let key = try folder.write("AuthKey.p8", "a key file")
        let credentials = #"{"keyFile":"\#(key)","keyId":"ABC123DEFG","teamId":"TEAM123456"}"#
        let endpoint = #"{"baseURL":"https://127.0.0.1:2197"}"#
        let flat = #""credentials":\#(credentials),"mockEndpoint":\#(endpoint),"defaultEnvironment":"production""#
        let nested =
            #""apns":{"credentials":\#(credentials),"endpoints":{"production":\#(endpoint),"sandbox":\#(endpoint)},"#
            + #""defaultEnvironment":"production"}"#
        let expected = try Configuration.loadNoticingDeprecations(file: try folder.appFile(nested), environment: [:])
        #expect(expected.deprecations.isEmpty)
        #expect(expected.configuration.apps[0].apns.endpoints.production?.baseURL == "https://127.0.0.1:2197")

        let notices = [
            "apps[0].credentials is deprecated: use apps[0].apns.credentials",
            "apps[0].mockEndpoint is deprecated: use apps[0].apns.endpoints.production and .sandbox",
            "apps[0].defaultEnvironment is deprecated: use apps[0].apns.defaultEnvironment",
        ]
        let fromFile = try Configuration.loadNoticingDeprecations(file: try folder.appFile(flat), environment: [:])
        #expect(fromFile.configuration == expected.configuration)
        #expect(fromFile.deprecations == notices)
        #expect(!fromFile.configuration.redactedJSON.contains("mockEndpoint"))

        let apps = #"[{"id":"chat","topic":"com.example.chat","apiKeySHA256":["\#(Self.hash)"],\#(flat)}]"#
        let fromVariable = try Configuration.loadNoticingDeprecations(
            file: nil,
            environment: ["PUSH_RELAY_APPS": apps]
        )
        #expect(fromVariable.configuration == expected.configuration)
        #expect(fromVariable.deprecations == notices)
        let withNull = try Configuration.loadNoticingDeprecations(
            file: try folder.appFile(#""apns":null,"# + flat),
            environment: [:]
        )
        #expect(withNull.configuration == expected.configuration)
        let nestedApps = #"[{"id":"chat","topic":"com.example.chat","apiKeySHA256":["\#(Self.hash)"],\#(nested)}]"#
        let nestedVariable = try Configuration.loadNoticingDeprecations(
            file: nil,
            environment: ["PUSH_RELAY_APPS": nestedApps]
        )
        #expect(nestedVariable.configuration == expected.configuration)
        #expect(nestedVariable.deprecations.isEmpty)
    }

    /// The notices name each app by its index.
    @Test func eachAppsNoticesNameItsIndex() throws {
        let second =
            #"{"id":"two","topic":"t","apiKeySHA256":["\#(String(repeating: "b", count: 64))"],"#
            + #""defaultEnvironment":"production"}"#
        let apps = #"[{"id":"one","topic":"t","apiKeySHA256":["\#(Self.hash)"]},\#(second)]"#
        let loaded = try Configuration.loadNoticingDeprecations(file: nil, environment: ["PUSH_RELAY_APPS": apps])
        #expect(
            loaded.deprecations == ["apps[1].defaultEnvironment is deprecated: use apps[1].apns.defaultEnvironment"]
        )
        #expect(loaded.configuration.apps.map(\.apns.defaultEnvironment) == [.sandbox, .production])
    }

    @Test(arguments: [
        (#""credentials":{"certificateFile":"c"},"apns":{"credentials":{"certificateFile":"c"}}"#, "credentials"),
        (#""mockEndpoint":{"baseURL":"http://127.0.0.1:1"},"apns":{"endpoints":{}}"#, "endpoints"),
        (#""defaultEnvironment":"sandbox","apns":{"defaultEnvironment":"sandbox"}"#, "defaultEnvironment"),
    ])
    func aFlatKeyBesideItsNestedKeyIsRefusedNamingBoth(_ fields: String, _ nestedKey: String) throws {
        let folder = try Folder()
        let flatKey = nestedKey == "endpoints" ? "mockEndpoint" : nestedKey
        #expect(
            Self.problems(try folder.appFile(fields)) == [
                "apps[0].\(flatKey): also set as apps[0].apns.\(nestedKey); keep only the apns one"
            ]
        )
    }

    @Test(arguments: [
        (#""apns":{"endpoint":{"baseURL":"http://127.0.0.1:1"}}"#, "apps[0].apns: unknown key 'endpoint'"),
        (
            #""apns":{"endpoints":{"staging":{"baseURL":"http://127.0.0.1:1"}}}"#,
            "apps[0].apns.endpoints: unknown key 'staging'"
        ),
        (#""fcm":{"serviceAccount":"x.json"}"#, "apps[0].fcm: unknown key 'serviceAccount'"),
        (#""fcm":{"endpoint":{"baseURL":"http://127.0.0.1:1","ca":"x"}}"#, "apps[0].fcm.endpoint: unknown key 'ca'"),
        (#""mockEndpoints":{}"#, "apps[0]: unknown key 'mockEndpoints'"),
    ])
    func unknownKeysInThePlatformSettingsAreRefused(_ fields: String, _ problem: String) throws {
        let folder = try Folder()
        #expect(Self.problems(try folder.appFile(fields)) == [problem])
    }

    @Test func fcmSettingsAreChecked() throws {
        let folder = try Folder()
        let notAnAccount = try folder.write("google-services.json", #"{"project_info":{"project_id":"chat-app-1234"}}"#)
        var configuration = Configuration()
        configuration.apps = [
            .init(
                id: "a",
                topic: "t",
                apiKeySHA256: [Self.hash],
                fcm: .init(
                    serviceAccountFile: "/nonexistent/account.json",
                    projectId: "Not_A_Project",
                    endpoint: .init(baseURL: "ftp://127.0.0.1:1", caFile: "/nonexistent/ca.pem")
                )
            ),
            .init(
                id: "b",
                topic: "t",
                apiKeySHA256: [String(repeating: "b", count: 64)],
                fcm: .init(serviceAccountFile: notAnAccount, endpoint: .init(baseURL: "https://127.0.0.1:1/"))
            ),
        ]
        do {
            try configuration.validate()
            Issue.record("expected a failure")
        } catch {
            #expect(error.problems.count == 6, "\(error.problems)")
            #expect(
                Array(error.problems.prefix(4)) == [
                    "apps[0].fcm.serviceAccountFile: cannot read service account file /nonexistent/account.json",
                    "apps[0].fcm.projectId: 'Not_A_Project' is not a project id (6 to 100 lowercase letters, "
                        + "digits, '-', '.' or ':', starting with a letter)",
                    "apps[0].fcm.endpoint.baseURL: must be an http or https URL, e.g. https://127.0.0.1:2197",
                    "apps[0].fcm.endpoint.caFile: cannot read /nonexistent/ca.pem (no such file)",
                ]
            )
            let account = "apps[1].fcm.serviceAccountFile: service account file \(notAnAccount): missing field"
            #expect(error.problems.dropFirst(4).first?.hasPrefix(account) == true, "\(error.problems)")
            #expect(error.problems.last == "apps[1].fcm.endpoint.baseURL: must not end with /")
        }
        // A good account, a project id, an endpoint: valid; and no account at all (the dev mock) too.
        configuration.apps[0].fcm = .init(serviceAccountFile: try folder.serviceAccount(), projectId: "chat-app-1234")
        configuration.apps[1].fcm = .init()
        #expect(throws: Never.self) { try configuration.validate() }
        // Without an account the settings stand for the dev mock: they name nothing else, and never for an
        // app with APNs credentials, whose Android pushes would go to the mock.
        configuration.apps[1].fcm = .init(endpoint: .init(baseURL: "http://127.0.0.1:2198"))
        #expect(throws: Configuration.Invalid.self) { try configuration.validate() }
        configuration.apps[1].fcm = .init()
        configuration.apps[1].apns.credentials = .init(keyFile: "k.p8", keyId: "KEY1234567", teamId: "TEAM123456")
        let production = #expect(throws: Configuration.Invalid.self) { try configuration.validate() }
        #expect(
            production?.problems.contains {
                $0.hasPrefix("apps[1].fcm.serviceAccountFile: required for an app with APNs credentials")
            } == true
        )
    }

    @Test func apnsEndpointsAreCheckedPerEnvironment() {
        var configuration = Configuration()
        var app = Configuration.App(id: "a", topic: "t", apiKeySHA256: [Self.hash])
        app.apns.endpoints.sandbox = .init(baseURL: "https://127.0.0.1:2197/")
        app.apns.endpoints.production = .init(baseURL: "127.0.0.1:2197")
        configuration.apps = [app]
        do {
            try configuration.validate()
            Issue.record("expected a failure")
        } catch {
            #expect(
                error.problems == [
                    // Endpoints without credentials: every push would lack a provider token.
                    "apps[0].apns.endpoints: need apps[0].apns.credentials (without both, serve uses its in-process mock APNs)",
                    "apps[0].apns.endpoints.sandbox.baseURL: must not end with /",
                    "apps[0].apns.endpoints.production.baseURL: must be an http or https URL, e.g. https://127.0.0.1:2197",
                ]
            )
        }
    }

    /// The certificate password stays redacted at its new place; the service account file is shown as the
    /// path it is, never read into the printout.
    @Test func theCertificatePasswordIsRedactedAndTheServiceAccountShownAsAPath() throws {
        let folder = try Folder()
        let account = try folder.serviceAccount()
        var app = Configuration.App(id: "a", topic: "t", apiKeySHA256: [Self.hash])
        app.apns.credentials = .init(certificateFile: "/etc/push-relay/cert.p12", certificatePassword: "hunter2-secret")
        app.fcm = .init(serviceAccountFile: account)
        var configuration = Configuration()
        configuration.apps = [app]
        let printed = configuration.redactedJSON
        #expect(!printed.contains("hunter2-secret"), "\(printed)")
        #expect(printed.contains(#""certificatePassword" : "<redacted>""#), "\(printed)")
        #expect(printed.contains(account))
        #expect(!printed.contains("PRIVATE KEY"))
    }
}
