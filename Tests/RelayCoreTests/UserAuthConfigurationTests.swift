import Foundation
import RelayCore
import Testing

/// `apps[].userAuth`: decoding with defaults, unknown keys, and every problem validate() names.
@Suite struct UserAuthConfigurationTests {
    static let hash = String(repeating: "a", count: 64)

    func load(_ userAuth: String) throws(Configuration.Invalid) -> Configuration {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).json")
        try! Data(
            #"{"apps":[{"id":"chat","topic":"t","apiKeySHA256":["\#(Self.hash)"],"userAuth":\#(userAuth)}]}"#.utf8
        )
        .write(to: url)
        return try Configuration.load(file: url.path, environment: [:])
    }

    func problems(_ userAuth: String) -> [String] {
        do {
            _ = try load(userAuth)
            return []
        } catch { return error.problems }
    }

    /// A readable file to name as a key file (its contents are RelayAuth's to check).
    static let readable = #filePath

    @Test func defaultsFillWhatIsLeftOut() throws {
        let configuration = try load(
            #"{"jwt":{"jwksURL":"https://id.example.test/.well-known/jwks.json"},"dittoAuthWebhook":{"url":"http://127.0.0.1:9999/auth","provider":"my-auth"}}"#
        )
        let userAuth = try #require(configuration.apps.first?.userAuth)
        #expect(
            userAuth.jwt
                == .init(
                    jwksURL: "https://id.example.test/.well-known/jwks.json",
                    leewaySeconds: 60,
                    userIdClaim: "sub"
                )
        )
        #expect(
            userAuth.dittoAuthWebhook
                == .init(
                    url: "http://127.0.0.1:9999/auth",
                    provider: "my-auth",
                    maxCacheSeconds: 600,
                    refusalCacheSeconds: 10,
                    timeoutMilliseconds: 5000
                )
        )
        #expect(configuration.apps.first?.userAuth?.jwt?.algorithms == nil)
        #expect(configuration.redactedJSON.contains("my-auth"))
    }

    @Test func anAppWithoutUserAuthHasNone() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).json")
        try Data(#"{"apps":[{"id":"chat","topic":"t","apiKeySHA256":["\#(Self.hash)"]}]}"#.utf8).write(to: url)
        #expect(try Configuration.load(file: url.path, environment: [:]).apps[0].userAuth == nil)
    }

    @Test(arguments: [
        (#"{"jwt":{"jwksUrl":"https://x.test/"}}"#, "apps[0].userAuth.jwt: unknown key 'jwksUrl'"),
        (#"{"webhook":{}}"#, "apps[0].userAuth: unknown key 'webhook'"),
        (
            #"{"dittoAuthWebhook":{"url":"https://x.test/","provider":"p","secret":"s"}}"#,
            "apps[0].userAuth.dittoAuthWebhook: unknown key 'secret'"
        ),
        (#"{"dittoAuthWebhook":{"url":"https://x.test/"}}"#, "apps[0].userAuth.dittoAuthWebhook.provider: is required"),
        (
            #"{"jwt":{"jwksURL":"https://x.test/","algorithms":["HS256"]}}"#,
            "apps[0].userAuth.jwt.algorithms[0]: must be one of ES256, RS256, not 'HS256'"
        ),
    ])
    func aMisspeltOrMisshapenKeyIsRefusedByPath(_ userAuth: String, _ problem: String) {
        #expect(problems(userAuth) == [problem])
    }

    @Test func everyProblemIsNamedByKeyPath() {
        #expect(problems("{}") == ["apps[0].userAuth: needs jwt, dittoAuthWebhook or both"])
        #expect(
            problems(
                #"{"jwt":{"issuer":" ","audience":"","leewaySeconds":-1,"userIdClaim":"","algorithms":[]},"dittoAuthWebhook":{"url":"ftp://x.test/","provider":"","maxCacheSeconds":0,"refusalCacheSeconds":-5,"timeoutMilliseconds":600000}}"#
            ) == [
                "apps[0].userAuth.jwt: needs publicKeyFiles, jwksFile or jwksURL",
                "apps[0].userAuth.jwt.issuer: must not be blank",
                "apps[0].userAuth.jwt.audience: must not be blank",
                "apps[0].userAuth.jwt.leewaySeconds: must be 0...3600",
                "apps[0].userAuth.jwt.userIdClaim: must not be blank",
                "apps[0].userAuth.jwt.algorithms: must not be empty",
                "apps[0].userAuth.dittoAuthWebhook.url: must be https (http only to a loopback host)",
                "apps[0].userAuth.dittoAuthWebhook.provider: must not be blank",
                "apps[0].userAuth.dittoAuthWebhook.maxCacheSeconds: must be positive",
                "apps[0].userAuth.dittoAuthWebhook.refusalCacheSeconds: must be positive",
                "apps[0].userAuth.dittoAuthWebhook.timeoutMilliseconds: must be 1...60000",
            ]
        )
    }

    @Test func keyFilesMustBeReadable() {
        #expect(
            problems(
                #"{"jwt":{"publicKeyFiles":["\#(Self.readable)","/nonexistent.pem"],"jwksFile":"/nonexistent.json"}}"#
            )
                == [
                    "apps[0].userAuth.jwt.publicKeyFiles[1]: cannot read /nonexistent.pem (no such file)",
                    "apps[0].userAuth.jwt.jwksFile: cannot read /nonexistent.json (no such file)",
                ]
        )
        #expect(problems(#"{"jwt":{"publicKeyFiles":["\#(Self.readable)"]}}"#) == [])
    }

    /// https everywhere; plain http only to a loopback host (a sidecar, tests); never user:password.
    @Test(
        arguments: [
            ("https://id.example.test/jwks.json", nil),
            ("http://127.0.0.1:8080/jwks", nil),
            ("http://127.8.9.10/jwks", nil),
            ("http://[::1]:8080/jwks", nil),
            ("http://localhost:8080/jwks", nil),
            ("http://id.example.test/jwks", "must be https (http only to a loopback host)"),
            ("http://127.0.0.1.example.test/jwks", "must be https (http only to a loopback host)"),
            ("http://10.0.0.1/jwks", "must be https (http only to a loopback host)"),
            ("https://user:secret@id.example.test/jwks", "must not hold user:password"),
            ("file:///etc/jwks.json", "must be an absolute https URL"),
            ("jwks.json", "must be an absolute https URL"),
        ] as [(String, String?)]
    )
    func urlsAreHTTPSExceptToLoopback(_ url: String, _ problem: String?) {
        #expect(
            problems(#"{"jwt":{"jwksURL":"\#(url)"}}"#)
                == (problem.map { ["apps[0].userAuth.jwt.jwksURL: \($0)"] } ?? [])
        )
        #expect(
            problems(#"{"dittoAuthWebhook":{"url":"\#(url)","provider":"p"}}"#)
                == (problem.map { ["apps[0].userAuth.dittoAuthWebhook.url: \($0)"] } ?? [])
        )
    }

    /// Two apps that trust one JWT key take each other's tokens unless their audiences (or issuers) differ:
    /// `config check` and `serve` warn, whatever path each names the key by.
    @Test func appsSharingAJWTKeyWithoutDistinctAudiencesAreWarnedOf() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func key(_ name: String, _ contents: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let shared = try key("a.pem", "KEY-A\n")
        let samePEMElsewhere = try key("copy.pem", "KEY-\r\nA")
        let another = try key("b.pem", "KEY-B")
        func warnings(_ first: String, _ second: String) throws -> [String] {
            let url = directory.appendingPathComponent("config.json")
            let apps = [("one", first, "b"), ("two", second, "c")].map { id, jwt, hash in
                #"{"id":"\#(id)","topic":"t","apiKeySHA256":["\#(String(repeating: hash, count: 64))"],"#
                    + #""userAuth":{"jwt":\#(jwt)}}"#
            }
            try Data(#"{"apps":[\#(apps.joined(separator: ","))]}"#.utf8).write(to: url)
            return try Configuration.load(file: url.path, environment: [:]).warnings
        }
        let onlyOne = try warnings(
            #"{"publicKeyFiles":["\#(shared)"],"audience":"one"}"#,
            #"{"publicKeyFiles":["\#(another)","\#(samePEMElsewhere)"]}"#
        )
        #expect(onlyOne.count == 1)
        #expect(
            onlyOne.first?.hasPrefix(
                "apps 'one' and 'two' trust the same JWT key (apps[1].userAuth.jwt.publicKeyFiles[1])"
            )
                == true,
            "\(onlyOne)"
        )
        // A URL is named by its key path: its query may hold a secret.
        let byURL = try warnings(
            #"{"jwksURL":"https://id.example.test/jwks?key=s3cret","issuer":"https://id.example.test/"}"#,
            #"{"jwksURL":"https://id.example.test/jwks?key=s3cret","issuer":"https://id.example.test/"}"#
        )
        #expect(byURL.count == 1 && byURL.first?.contains("(apps[1].userAuth.jwt.jwksURL)") == true, "\(byURL)")
        #expect(byURL.first?.contains("s3cret") == false)
        let apart = [
            (
                #"{"publicKeyFiles":["\#(shared)"],"audience":"one"}"#,
                #"{"publicKeyFiles":["\#(shared)"],"audience":"two"}"#
            ),
            (#"{"publicKeyFiles":["\#(shared)"],"issuer":"a"}"#, #"{"publicKeyFiles":["\#(shared)"],"issuer":"b"}"#),
            (#"{"publicKeyFiles":["\#(shared)"]}"#, #"{"publicKeyFiles":["\#(another)"]}"#),
        ]
        for (first, second) in apart { #expect(try warnings(first, second).isEmpty, "\(first) \(second)") }
    }
}
