import Foundation
import RelayCore
import Testing

@Suite struct ConfigurationTests {
    static let hash = String(repeating: "a", count: 64)

    func file(_ json: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: url)
        return url.path
    }

    @Test func layersApplyInOrder() throws {
        // The APNs endpoint needs credentials: a certificate file the check can read (this file; never used).
        let path = try file(
            #"{"http":{"port":9000,"host":"0.0.0.0"},"apps":[{"id":"chat","topic":"com.example.chat","apiKeySHA256":["\#(Self.hash)"],"apns":{"credentials":{"certificateFile":"\#(#filePath)"},"endpoints":{"sandbox":{"baseURL":"https://127.0.0.1:2197"}},"defaultEnvironment":"sandbox"},"ttlSeconds":60}]}"#
        )
        let configuration = try Configuration.load(
            file: path,
            environment: [
                "PUSH_RELAY_HTTP_PORT": "9100", "PUSH_RELAY_DELIVERY_RETRY_MAX_ATTEMPTS": "4", "HOME": "/x",
                "PUSH_RELAY_HTTP_MAX_HEADER_BYTES": "8192",
            ]
        )
        #expect(configuration.http.port == 9100)
        #expect(configuration.http.maxHeaderBytes == 8192)
        #expect(configuration.http.host == "0.0.0.0")
        #expect(configuration.http.maxBodyBytes == 65_536)
        #expect(configuration.delivery.retry.maxAttempts == 4)
        #expect(configuration.apps.first?.topic == "com.example.chat")
    }

    @Test func everyProblemIsReportedAtOnce() throws {
        let path = try file(
            #"{"http":{"port":0,"maxBodyBytes":0,"maxHeaderBytes":100,"threads":0},"delivery":{"concurrency":-1}}"#
        )
        do {
            _ = try Configuration.load(file: path, environment: ["PUSH_RELAY_NO_SUCH_THING": "1"])
            Issue.record("expected a failure")
        } catch {
            #expect(
                error.problems == [
                    "PUSH_RELAY_NO_SUCH_THING: no such setting",
                    "http.maxBodyBytes: must be 1...16777216 (each request's body is held whole)",
                    "http.maxHeaderBytes: must be 4096...1048576 (memory kept for every connection)",
                    "http.threads: must be 1...64",
                    "delivery.concurrency: must be 1...10000",
                ]
            )
        }
        do {
            _ = try Configuration.load(file: path, environment: [:])
            Issue.record("expected a failure")
        } catch {
            #expect(error.problems.contains { $0.hasPrefix("http.maxBodyBytes") })
            #expect(error.problems.contains { $0.hasPrefix("delivery.concurrency") })
        }
    }

    /// A value of the wrong type is named by key path and the JSON it must be, not in Swift's words.
    @Test func aWrongTypeIsNamedInJSONTerms() throws {
        let path = try file(#"{"http":{"port":"8080"}}"#)
        do {
            _ = try Configuration.load(file: path, environment: [:])
            Issue.record("expected a failure")
        } catch {
            let problems = error.problems.joined(separator: "\n")
            #expect(problems.contains("http.port: must be an integer"), "\(problems)")
            #expect(!problems.contains("Expected to decode"), "\(problems)")
        }
    }

    /// A count or a time past its top is refused before the relay starts: 2^63 - 1 workers, or a shutdown
    /// bound of that many seconds, would trap or exhaust memory once serving.
    @Test func countsAndTimesHaveATop() throws {
        let most = Int.max
        let path = try file(
            """
            {"delivery":{"concurrency":\(most),"leaseSeconds":\(most),"retry":{"maxAttempts":1e10,
            "baseDelayMilliseconds":\(most),"maxDelayMilliseconds":\(most)}},"shutdownTimeoutSeconds":\(most),
            "storage":{"busyTimeoutMilliseconds":\(most)}}
            """
        )
        do {
            _ = try Configuration.load(file: path, environment: [:])
            Issue.record("expected a failure")
        } catch {
            #expect(
                error.problems == [
                    "storage.busyTimeoutMilliseconds: must be 1...600000",
                    "delivery.concurrency: must be 1...10000",
                    "delivery.leaseSeconds: must be 1...86400",
                    "delivery.retry.maxAttempts: must be 1...1000",
                    "delivery.retry.baseDelayMilliseconds: must be 1...86400000",
                    "delivery.retry.maxDelayMilliseconds: must be 1...86400000",
                    "shutdownTimeoutSeconds: must be 1...3600",
                ]
            )
        }
        let tops = try file(
            #"{"delivery":{"concurrency":10000,"leaseSeconds":86400},"shutdownTimeoutSeconds":3600}"#
        )
        #expect(try Configuration.load(file: tops, environment: [:]).delivery.concurrency == 10_000)
    }

    /// Values at the top of their ranges are taken: a 64-character app id, a topic with an APNs suffix up to
    /// 255 bytes, buckets of a million, the listener's timeouts at a day.
    @Test func valuesAtTheirTopsAreTaken() throws {
        var configuration = Configuration()
        let topic = "com.example.chat.push-type.liveactivity"
        configuration.apps = [
            .init(id: String(repeating: "a", count: 64), topic: topic, apiKeySHA256: [Self.hash]),
            .init(
                id: "b",
                topic: topic + String(repeating: "x", count: 255 - topic.utf8.count),
                apiKeySHA256: [String(repeating: "ab", count: 32)]
            ),
        ]
        configuration.apps[0].limits.writeBurst = 1_000_000
        configuration.apps[0].limits.webhooksPerMinute = 1_000_000
        configuration.http.connectionTimeoutSeconds = 86_400
        configuration.http.maxConnectionsPerAddress = 1_000_000
        configuration.delivery.requestTimeoutMilliseconds = 600_000
        configuration.delivery.retry.maxAttempts = 1000
        try configuration.validate()
    }

    /// The SQLite store is a file: an in-memory database would lose what the relay accepted, and a directory
    /// is none. With PostgreSQL the path is not used, and not checked.
    @Test func theSQLitePathNamesAFile() throws {
        let directory = FileManager.default.temporaryDirectory.path
        for path in [":memory:", "file:relay?mode=memory", directory] {
            var configuration = Configuration()
            configuration.storage.sqlitePath = path
            do {
                try configuration.validate()
                Issue.record("\(path) was taken")
            } catch {
                #expect(error.problems.count == 1 && error.problems[0].hasPrefix("storage.sqlitePath: "), "\(error)")
            }
            configuration.storage.postgres.url = "postgresql://relay@db/relay"
            try configuration.validate()
        }
    }

    /// A body limit past 16 MiB is refused: the relay holds each body whole.
    @Test func theBodyLimitHasABound() throws {
        #expect(throws: Configuration.Invalid.self) {
            try Configuration.load(file: nil, environment: ["PUSH_RELAY_HTTP_MAX_BODY_BYTES": "99999999999"])
        }
        let largest = try Configuration.load(file: nil, environment: ["PUSH_RELAY_HTTP_MAX_BODY_BYTES": "16777216"])
        #expect(largest.http.maxBodyBytes == 16_777_216)
    }

    @Test func appsNeedCredentialsThatCanBeRead() {
        var configuration = Configuration()
        configuration.apps = [
            .init(
                id: "a",
                topic: "t",
                apiKeySHA256: [Self.hash],
                apns: .init(credentials: .init(keyFile: "/nonexistent.p8"))
            ),
            .init(id: "a", topic: "", apiKeySHA256: ["nothex"]),
            .init(id: String(repeating: "x", count: 65), topic: "com.example.chat\r\nx: y", apiKeySHA256: [Self.hash]),
        ]
        #expect(throws: Configuration.Invalid.self) { try configuration.validate() }
        do { try configuration.validate() } catch {
            #expect(
                error.problems.contains("apps[0].apns.credentials.keyFile: cannot read /nonexistent.p8 (no such file)")
            )
            #expect(error.problems.contains("apps[0].apns.credentials.keyId: required with keyFile"))
            #expect(error.problems.contains("apps[1].id: 'a' is used twice"))
            let topic = "topic: must be 1 to 255 printable ASCII characters without spaces (the app's bundle id)"
            #expect(error.problems.contains("apps[1].\(topic)"))
            // A line break would split the apns-topic header; the id is in every metric series.
            #expect(error.problems.contains("apps[2].\(topic)"))
            #expect(error.problems.contains("apps[2].id: must be 1 to 64 letters, digits, '.', '_' or '-'"))
        }
    }

    /// An API key selects one app: the same key hash for two apps (in any case) would reach only the first.
    @Test func oneKeyCannotSelectTwoApps() {
        var configuration = Configuration()
        let upper = Self.hash.uppercased()
        let apns = Configuration.APNs()
        configuration.apps = [
            .init(id: "a", topic: "t", apiKeySHA256: [Self.hash], apns: apns),
            .init(id: "b", topic: "t", apiKeySHA256: [upper], apns: apns),
        ]
        do {
            try configuration.validate()
            Issue.record("expected a failure")
        } catch {
            #expect(
                error.problems == ["apps[1].apiKeySHA256[0]: the same key as app 'a'; each key selects one app"]
            )
        }
        configuration.apps[1].apiKeySHA256 = [String(repeating: "b", count: 64)]
        #expect(throws: Never.self) { try configuration.validate() }
    }

    /// A key `push-relay keys new` made, pasted where its hash belongs, is named as a key (it would match no
    /// call, and now sits in a file): the problem says so, and does not repeat the key.
    @Test func aPastedAPIKeyIsNamedAsAKeyNotAHash() {
        var configuration = Configuration()
        let key = Configuration.App.apiKeyPrefix + String(repeating: "ab", count: 32)
        let apns = Configuration.APNs()
        configuration.apps = [.init(id: "a", topic: "t", apiKeySHA256: [Self.hash, key], apns: apns)]
        do {
            try configuration.validate()
            Issue.record("expected a failure")
        } catch {
            #expect(error.problems.count == 1)
            let problem = error.problems.first ?? ""
            #expect(problem.hasPrefix("apps[0].apiKeySHA256[1]: holds a key itself, not its SHA-256"), "\(problem)")
            #expect(!problem.contains(key))
        }
        // Full-width digits are hex digits to `Character`, and 64 bytes with some of them match no key.
        configuration.apps[0].apiKeySHA256 = [String(repeating: "a", count: 58) + "\u{FF10}\u{FF11}"]
        #expect {
            try configuration.validate()
        } throws: { error in
            (error as? Configuration.Invalid)?.problems == [
                "apps[0].apiKeySHA256[0]: must be 64 hex characters (SHA-256 of the key)"
            ]
        }
    }

    /// A Ditto ingest secret is neither an API key (its own app's or another's, in any case) nor another
    /// app's ingest secret: each credential selects one app, in one role.
    @Test func anIngestSecretSelectsOneAppAndIsNoAPIKey() {
        var configuration = Configuration()
        let apns = Configuration.APNs()
        let (keyA, keyB, keyC) = (Self.hash, String(repeating: "b", count: 64), String(repeating: "c", count: 64))
        let secret = String(repeating: "d", count: 64)
        configuration.apps = [
            .init(id: "a", topic: "t", apiKeySHA256: [keyA], apns: apns),
            .init(id: "b", topic: "t", apiKeySHA256: [keyB], apns: apns),
            .init(id: "c", topic: "t", apiKeySHA256: [keyC], apns: apns),
        ]
        configuration.apps[0].ditto = .init(ingestSecretSHA256: [secret, keyB.uppercased()])
        configuration.apps[1].ditto = .init(ingestSecretSHA256: [keyB])
        configuration.apps[2].ditto = .init(ingestSecretSHA256: [secret])
        let error = #expect(throws: Configuration.Invalid.self) { try configuration.validate() }
        #expect(
            error?.problems == [
                "apps[0].ditto.ingestSecretSHA256[1]: the same secret as an API key of app 'b'; keep them apart",
                "apps[1].ditto.ingestSecretSHA256[0]: the same secret as an API key of app 'b'; keep them apart",
                "apps[2].ditto.ingestSecretSHA256[0]: the same secret as app 'a'; each secret selects one app",
            ]
        )
        configuration.apps[0].ditto = .init(ingestSecretSHA256: [secret])
        configuration.apps[1].ditto = .init(ingestSecretSHA256: [String(repeating: "e", count: 64)])
        configuration.apps[2].ditto = .init(ingestSecretSHA256: [String(repeating: "f", count: 64)])
        #expect(throws: Never.self) { try configuration.validate() }
    }

    @Test func unknownKeysAreRefusedWithTheirPath() throws {
        let path = try file(
            #"{"htpp":{},"http":{"prot":1},"apps":[{"id":"a","topic":"t","apiKeySHA256":["\#(Self.hash)"],"ttl":5}]}"#
        )
        do {
            _ = try Configuration.load(file: path, environment: [:])
            Issue.record("expected a failure")
        } catch {
            #expect(error.problems.contains("htpp: unknown key"))
            #expect(error.problems.contains("http.prot: unknown key"))
        }
        let appPath = try file(#"{"apps":[{"id":"a","topic":"t","apiKeySHA256":["\#(Self.hash)"],"ttl":5}]}"#)
        #expect(throws: Configuration.Invalid.self) { try Configuration.load(file: appPath, environment: [:]) }
    }

    @Test func appsTakeDefaultsForOptionalKeysAndSecretsAreRedacted() throws {
        let path = try file(
            #"{"apps":[{"id":"a","topic":"t","apiKeySHA256":["\#(Self.hash)"],"webhookSecret":"0123456789abcdef-secret","#
                + #""previousWebhookSecrets":["previous-secret-0123456789"]}]}"#
        )
        let configuration = try Configuration.load(file: path, environment: [:])
        #expect(configuration.apps[0].ttlSeconds == 86_400)
        #expect(configuration.apps[0].apns.defaultEnvironment == .sandbox)
        #expect(
            configuration.apps[0].acceptedWebhookSecrets == ["0123456789abcdef-secret", "previous-secret-0123456789"]
        )
        #expect(!configuration.redactedJSON.contains("0123456789abcdef-secret"))
        #expect(!configuration.redactedJSON.contains("previous-secret"))
        #expect(configuration.redactedJSON.contains("<redacted>"))
    }

    /// Previous webhook secrets need the current one, are as long as it must be, and are few.
    @Test func previousWebhookSecretsAreChecked() throws {
        var app = Configuration.App(id: "a", topic: "t", apiKeySHA256: [Self.hash])
        app.previousWebhookSecrets = ["previous-secret-0123456789"]
        var configuration = Configuration()
        configuration.apps = [app]
        func problems() -> [String] {
            do {
                try configuration.validate()
                return []
            } catch { return error.problems }
        }
        #expect(problems().contains { $0.hasPrefix("apps[0].previousWebhookSecrets: takes effect only with") })
        configuration.apps[0].webhookSecret = "current-secret-0123456789"
        #expect(problems().isEmpty, "\(problems())")
        configuration.apps[0].previousWebhookSecrets =
            ["short"] + Array(repeating: "previous-secret-0123456789", count: 4)
        #expect(problems().contains("apps[0].previousWebhookSecrets[0]: must be at least 16 bytes"))
        #expect(problems().contains { $0.hasPrefix("apps[0].previousWebhookSecrets: at most 4") })
    }

    /// Tokens passed in URL queries (feedback, JWKS, auth webhook) never reach a printout.
    @Test func urlQueriesAreRedacted() throws {
        var app = Configuration.App(id: "a", topic: "t", apiKeySHA256: [Self.hash])
        app.feedbackURL = "https://hooks.example.com/feedback?key=SECRET1"
        app.userAuth = .init(
            jwt: .init(publicKeyFiles: [], jwksURL: "https://id.example.com/jwks.json?token=SECRET2"),
            dittoAuthWebhook: .init(url: "https://auth.example.com/ditto?key=SECRET3", provider: "p")
        )
        var configuration = Configuration()
        configuration.apps = [app]
        let printed = configuration.redactedJSON
        #expect(!printed.contains("SECRET"), "\(printed)")
        #expect(printed.contains("https://id.example.com/jwks.json?redacted"))
        #expect(printed.contains("https://hooks.example.com/feedback?redacted"))
    }

    /// An unknown environment or log level names the values allowed, not Swift's "Cannot initialize …".
    @Test func anUnknownNamedValueListsTheValuesAllowed() throws {
        let path = try file(
            #"{"apps":[{"id":"a","topic":"t","apiKeySHA256":["\#(Self.hash)"],"apns":{"defaultEnvironment":"staging"}}]}"#
        )
        do {
            _ = try Configuration.load(file: path, environment: [:])
            Issue.record("expected a failure")
        } catch {
            #expect(
                error.problems == ["apps[0].apns.defaultEnvironment: must be one of sandbox, production, not 'staging'"]
            )
        }
    }

    @Test func aValueOfTheWrongTypeIsRefused() throws {
        #expect(throws: Configuration.Invalid.self) {
            try Configuration.load(file: nil, environment: ["PUSH_RELAY_HTTP_PORT": "eighty"])
        }
    }

    /// A pipe (`--config <(...)`) or a device reads as a file does; an empty one is not JSON, and one past
    /// the size bound is refused without reading the rest.
    @Test func aPipeOrDeviceIsReadLikeAFile() throws {
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(contentsOf: Data(#"{"http":{"port":9001}}"#.utf8))
        try pipe.fileHandleForWriting.close()
        let configuration = try Configuration.load(
            file: "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)",
            environment: [:]
        )
        #expect(configuration.http.port == 9001)
        do {
            _ = try Configuration.load(file: "/dev/null", environment: [:])
            Issue.record("expected a failure")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.hasPrefix("/dev/null: cannot be read as JSON") == true, "\(error)")
        }
        do {
            _ = try Configuration.load(file: "/dev/zero", environment: [:])
            Issue.record("expected a failure")
        } catch {
            #expect(error.problems == ["/dev/zero: larger than \(1 << 20) bytes"])
        }
    }
}
