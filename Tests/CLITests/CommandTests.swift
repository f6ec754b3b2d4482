import Foundation
import RelayTestSupport
import Testing

/// `push-relay config check`, `version` and `keys new` as an operator runs them.
@Suite struct CommandTests {
    /// Runs `push-relay arguments...` to completion.
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:]
    ) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let process = try RelayProcess(arguments, environment: environment, outputIn: directory.url, name: "run")
        let exit = try await process.exitStatus(timeout: .seconds(30))
        #expect(exit.exited)
        return (exit.status, process.stdout, process.stderr)
    }

    /// A reader that went away (`push-relay version | head -1`, a log collector that died) loses the lines,
    /// not the process: a write fails with EPIPE, which must not trap.
    @Test func aReaderThatWentAwayEndsNoCommand() async throws {
        for (arguments, stream) in [
            (["version"], "stdout"), (["config", "check", "--config", "/nonexistent"], "stderr"),
        ] {
            let process = Process()
            process.executableURL = try pushRelayBinary()
            process.arguments = arguments
            let gone = Pipe(), kept = Pipe()
            process.standardOutput = stream == "stdout" ? gone : kept
            process.standardError = stream == "stdout" ? kept : gone
            try gone.fileHandleForReading.close()
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationReason == .exit, "\(arguments): \(process.terminationReason.rawValue)")
            // Both fail: `version`'s output was lost, `config check` found no file.
            #expect(process.terminationStatus == 1, "\(arguments)")
            if stream == "stdout" {
                let said = String(decoding: kept.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                #expect(said.contains("push-relay version: standard output could not be written"), "\(said)")
            }
        }
        // A full disk loses the output too.
        let full = try await ChildProcess.run(
            "/bin/sh",
            ["-c", "\"$0\" version > /dev/full", try pushRelayBinary().path],
            includingErrors: true
        )
        #expect(full.termination == .exited(1), "\(full)")
        let help = try await ChildProcess.run(
            "/bin/sh",
            ["-c", "\"$0\" --help > /dev/full", try pushRelayBinary().path]
        )
        #expect(help.termination == .exited(1), "\(help)")
    }

    @Test func configCheckListsEveryProblemOfABadFileAndExits1() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("relay.json")
        let hash = String(repeating: "ab", count: 32)
        let json = """
            {"htp": {"port": 8080},
             "http": {"port": 70000, "hots": "0.0.0.0"},
             "delivery": {"concurrency": 0, "retry": {"maxAttempts": -1}},
             "apps": [{"id": "chat", "topic": "com.example.chat", "apiKeySHA256": ["\(hash)"],
                       "apns": {"credentials": {"keyFile": "/nonexistent/AuthKey_ABC.p8", "keyId": "ABC", "teamId": "TEAM"}}}]}
            """
        try Data(json.utf8).write(to: file)
        let result = try await Self.run(["config", "check", "--config", file.path])
        #expect(result.status == 1)
        for problem in [
            "htp: unknown key", "http.hots: unknown key", "http.port:", "delivery.concurrency:",
            "delivery.retry.maxAttempts:", "apps[0].apns.credentials.keyFile:",
        ] {
            #expect(result.stderr.contains(problem), "missing '\(problem)' in:\n\(result.stderr)")
        }
        #expect(!result.stdout.contains("{"), "printed a configuration: \(result.stdout)")

        // A variable of the wrong type is listed with the file's problems.
        let withVariable = try await Self.run(
            ["config", "check", "--config", file.path],
            environment: ["PUSH_RELAY_HTTP_MAX_BODY_BYTES": "lots"]
        )
        #expect(withVariable.status == 1)
        #expect(withVariable.stderr.contains("PUSH_RELAY_HTTP_MAX_BODY_BYTES"), "\(withVariable.stderr)")
        #expect(withVariable.stderr.contains("delivery.concurrency:"), "\(withVariable.stderr)")

        // A directory named as the file is said to be one.
        let folder = try await Self.run(["config", "check", "--config", directory.url.path])
        #expect(folder.status == 1 && folder.stderr.contains("a directory, not a configuration file"))
        #expect(!folder.stderr.contains("NSCocoaErrorDomain"), "\(folder.stderr)")
        // A file that is not there is said to be missing, not unreadable as JSON.
        let missing = directory.url.appendingPathComponent("nowhere.json").path
        let none = try await Self.run(["config", "check", "--config", missing])
        #expect(none.status == 1 && none.stderr.contains("\(missing): no such file"), "\(none.stderr)")
    }

    /// A PostgreSQL URL libpq cannot read fails the check, as it stops `serve`, and its password (which libpq
    /// quotes back) is not printed.
    @Test(arguments: ["mysql://relay:s3cret@db/relay", "postgresql://relay:s3cret@[::1", "host=db password s3cret"])
    func configCheckRefusesAPostgresURLLibpqCannotRead(url: String) async throws {
        let result = try await Self.run(["config", "check"], environment: ["PUSH_RELAY_STORAGE_POSTGRES_URL": url])
        #expect(result.status == 1)
        #expect(result.stderr.contains("storage.postgres.url: "), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret") && !result.stdout.contains("s3cret"), "\(result.stderr)")
    }

    /// A key file that can be read but holds no usable key fails the check, as it stops `serve`, instead of
    /// failing every delivery (a provider-token key, here a certificate) or every user credential later.
    @Test(arguments: [
        (
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
            #""apns": {"credentials": {"keyFile": "KEY", "keyId": "ABC", "teamId": "TEAM"}}"#,
            ["apps[0].apns.credentials.keyFile: ", "private key"]
        ),
        (
            "not a key", #""userAuth": {"jwt": {"publicKeyFiles": ["KEY"]}}"#,
            ["apps[0].userAuth.jwt.publicKeyFiles[0]: KEY: not a PEM public key"]
        ),
        (
            // The client refuses these subjects (no host; no mailto: or https:), so the check does too.
            "not a key", #""webPush": {"vapidKeyFile": "KEY", "subject": "https://"}"#,
            ["apps[0].webPush.vapidKeyFile: cannot sign", "apps[0].webPush.subject: the VAPID subject https: needs"]
        ),
        (
            "", #""webPush": {"subject": "ops@example.com"}"#,
            ["apps[0].webPush.subject: the VAPID subject must start with mailto: or https:"]
        ),
    ])
    func configCheckLoadsTheKeyFiles(_ keyText: String, _ field: String, _ expected: [String]) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = directory.url.appendingPathComponent("key.pem")
        try Data(keyText.utf8).write(to: key)
        let file = directory.url.appendingPathComponent("relay.json")
        let hash = String(repeating: "cd", count: 32)
        let app = #"{"id": "chat", "topic": "com.example.chat", "apiKeySHA256": ["\#(hash)"], \#(field)}"#
        try Data(#"{"apps": [\#(app.replacingOccurrences(of: "KEY", with: key.path))]}"#.utf8).write(to: file)
        let result = try await Self.run(["config", "check", "--config", file.path])
        #expect(result.status == 1)
        for text in expected.map({ $0.replacingOccurrences(of: "KEY", with: key.path) }) {
            #expect(result.stderr.contains(text), "\(result.stderr)")
        }
        #expect(!result.stdout.contains("{"), "printed a configuration: \(result.stdout)")
    }

    /// The checks of what files and URLs hold each run: one answer lists a key file's problem, the user-token
    /// keys' and the PostgreSQL URL's together.
    @Test func configCheckListsEveryFileAndURLProblemAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("relay.json")
        let app =
            #"{"id": "chat", "topic": "com.example.chat", "apiKeySHA256": ["\#(String(repeating: "ab", count: 32))"], "apns": {"credentials": {"keyFile": "KEY", "keyId": "ABC", "teamId": "TEAM"}}, "userAuth": {"jwt": {"publicKeyFiles": ["KEY"]}}}"#
        // `config check` of the app with both key files at `key`, and a PostgreSQL URL libpq refuses.
        let check = { (key: String) in
            try Data(#"{"apps": [\#(app.replacingOccurrences(of: "KEY", with: key))]}"#.utf8).write(to: file)
            return try await Self.run(
                ["config", "check", "--config", file.path],
                environment: ["PUSH_RELAY_STORAGE_POSTGRES_URL": "postgresql://relay:a@b@db/relay"]
            )
        }
        let notAKey = directory.url.appendingPathComponent("not-a-key.pem")
        try Data("not a key".utf8).write(to: notAKey)
        let result = try await check(notAKey.path)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("invalid configuration:\n"), "\(result.stderr)")
        for text in [
            "apps[0].apns.credentials.keyFile: ", "apps[0].userAuth.jwt.publicKeyFiles[0]: ", "storage.postgres.url: ",
        ] {
            #expect(result.stderr.contains(text), "\(text) in \(result.stderr)")
        }
        // A file validation cannot read hides no other check's problem, and is named once.
        let missing = directory.url.appendingPathComponent("missing.p8").path
        let unreadable = try await check(missing)
        #expect(unreadable.status == 1)
        #expect(unreadable.stderr.contains("keyFile: cannot read \(missing) (no such file)"), "\(unreadable.stderr)")
        #expect(unreadable.stderr.contains("storage.postgres.url: "), "\(unreadable.stderr)")
        #expect(unreadable.stderr.components(separatedBy: "apps[0].apns.credentials.keyFile").count == 2)
    }

    /// librdkafka opens an app's Kafka TLS files as `config check` builds a client with them: a .p12 with the
    /// wrong password fails the check (without printing the password), the right one passes.
    @Test(arguments: [("wrong-kafka-password", Int32(1)), ("test", Int32(0))])
    func configCheckOpensTheKafkaCertificate(password: String, status: Int32) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("relay.json")
        let hash = String(repeating: "ef", count: 32)
        let kafka =
            #"{"bootstrapServers": "127.0.0.1:9", "topics": ["messages"], "p12File": "P12", "p12Password": "PW"}"#
            .replacingOccurrences(of: "P12", with: HTTPSServeTests.fixture("tls/client.p12"))
            .replacingOccurrences(of: "PW", with: password)
        let app =
            #"{"id": "chat", "topic": "com.example.chat", "apiKeySHA256": ["\#(hash)"], "ditto": {"kafka": \#(kafka)}}"#
        try Data(#"{"apps": [\#(app)]}"#.utf8).write(to: file)
        let result = try await Self.run(["config", "check", "--config", file.path])
        #expect(result.status == status, "\(result.stderr)")
        if status != 0 {
            #expect(result.stderr.hasPrefix("invalid configuration:\n  - apps[0].ditto.kafka: rd_kafka_new"))
        }
        #expect(!result.stderr.contains("wrong-kafka-password") && !result.stdout.contains("wrong-kafka-password"))
    }

    @Test func configCheckPrintsAGoodConfigurationWithSecretsRedacted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("relay.json")
        let secret = "webhook-secret-that-must-not-print"
        try Data(
            """
            {"apps": [{"id": "chat", "topic": "com.example.chat", "apiKeySHA256": ["\(String(repeating: "cd", count: 32))"],
                       "webhookSecret": "\(secret)"}]}
            """.utf8
        ).write(to: file)
        let result = try await Self.run(["config", "check", "--config", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("com.example.chat"))
        #expect(!result.stdout.contains(secret))
    }

    /// A lease shorter than three request timeouts passes the check with a warning: a push waiting on a slow
    /// service could be taken again and sent twice.
    @Test func configCheckWarnsOfALeaseShorterThanThreeRequestTimeouts() async throws {
        let short = try await Self.run(["config", "check"], environment: ["PUSH_RELAY_DELIVERY_LEASE_SECONDS": "44"])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(
            short.stderr.contains(
                "warning: delivery.leaseSeconds (44) is less than three delivery.requestTimeoutMilliseconds (15000)"
            ),
            "\(short.stderr)"
        )
        let enough = try await Self.run(["config", "check"], environment: ["PUSH_RELAY_DELIVERY_LEASE_SECONDS": "45"])
        #expect(enough.status == 0 && !enough.stderr.contains("warning"), "\(enough.stderr)")
    }

    /// The flat APNs keys of before still pass the check, each with a notice naming its new key; the
    /// printout shows the nested form.
    @Test func configCheckReadsDeprecatedFlatKeysWithANoticeEach() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("relay.json")
        try Data(
            """
            {"apps": [{"id": "chat", "topic": "com.example.chat", "apiKeySHA256": ["\(String(repeating: "cd", count: 32))"],
                       "credentials": {"keyFile": "\(HTTPSServeTests.fixture("keys/AuthKey_ABC123DEFG.p8"))",
                                       "keyId": "ABC123DEFG", "teamId": "TEAM123456"},
                       "mockEndpoint": {"baseURL": "https://127.0.0.1:2197"}, "defaultEnvironment": "production"}]}
            """.utf8
        ).write(to: file)
        let result = try await Self.run(["config", "check", "--config", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let notices = result.stderr.split(separator: "\n").filter { $0.contains("is deprecated") }
        #expect(
            notices == [
                "warning: apps[0].credentials is deprecated: use apps[0].apns.credentials",
                "warning: apps[0].mockEndpoint is deprecated: use apps[0].apns.endpoints.production and .sandbox",
                "warning: apps[0].defaultEnvironment is deprecated: use apps[0].apns.defaultEnvironment",
            ],
            "\(result.stderr)"
        )
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let app = try #require((printed["apps"] as? [[String: Any]])?.first)
        let apns = try #require(app["apns"] as? [String: Any])
        #expect(apns["defaultEnvironment"] as? String == "production")
        let endpoints = try #require(apns["endpoints"] as? [String: [String: String]])
        #expect(endpoints["production"]?["baseURL"] == "https://127.0.0.1:2197")
        #expect(endpoints["sandbox"]?["baseURL"] == "https://127.0.0.1:2197")
        #expect(app["mockEndpoint"] == nil)
    }

    /// A command-line mistake exits 2 naming it, before anything starts: an unknown option (even without a
    /// value after it), an option given twice, a word the command does not take, no command at all.
    @Test func commandLineMistakesExit2NamingThem() async throws {
        for (arguments, problem) in [
            (["serve", "extra"], "unexpected argument 'extra'"),
            (["send", "--bogus"], "unknown option --bogus"),
            (["send", "--token", "a", "--token", "b"], "--token is given twice"),
            (
                [
                    "send", "--token", String(repeating: "ab", count: 32), "--topic", "com.example.chat",
                    "--key-file", "fixtures/keys/AuthKey_ABC123DEFG.p8", "--key-id", "ABC123DEFG", "--team-id",
                    "TEAM123456", "--timeout", "-5",
                ], "--timeout must be a positive integer"
            ),
            (
                [
                    "send", "--token", String(repeating: "ab", count: 32), "--topic", "com.example.chat",
                    "--key-file", "fixtures/keys/AuthKey_ABC123DEFG.p8", "--key-id", "ABC123DEFG", "--team-id",
                    "TEAM123456", "--environment", "sandbox", "--endpoint", "https://127.0.0.1:1",
                ], "--environment is Apple's host; --endpoint URL names another"
            ),
            (["version", "--bogus"], "unknown option --bogus"),
            // Each storage subcommand takes only its own options.
            (
                ["storage", "copy", "--from", "sqlite:a", "--to", "sqlite:b", "--txn-id", "5"],
                "unknown option --txn-id"
            ),
            (
                ["storage", "end-pending", "--store", "sqlite:a", "--app", "chat", "--txn-id", "5"],
                "unknown option --txn-id"
            ),
            (
                ["storage", "requery-done", "--store", "sqlite:a", "--app", "chat", "--batch", "5"],
                "unknown option --batch"
            ),
            (["storage", "copy", "--store", "sqlite:a", "--to", "sqlite:b"], "unknown option --store"),
            (["mock-apns", "--h2c=yes"], "--h2c takes no value"),
            (["keys", "old"], "unknown subcommand 'old'"),
            (["keys"], "missing subcommand: new, vapid or user-token"),
            (["mock-apns", "--port", "99999"], "--port must be 0 to 65535"),
            (["mock-fcm", "--port", "-1"], "--port must be 0 to 65535"),
            (["config"], "missing subcommand 'check'"),
            (["config", "check", "--config"], "--config needs a value"),
            // An option where a value belongs is a forgotten value, not the value.
            (["storage", "end-pending", "--store", "sqlite:a", "--app", "--txn-id", "7"], "--app needs a value"),
            (["storage"], "missing subcommand: copy, requery-done or end-pending"),
            (
                ["storage", "end-pending", "--store", "sqlite:a", "--config", "c.json", "--app", "chat"],
                "--store and --config each name a store: give one"
            ),
            (
                ["storage", "requery-done", "--app", "chat", "--password-file", "f"],
                "--password-file goes with --store"
            ),
            (
                ["storage", "copy", "--from", "sqlite:a", "--to", "postgres:postgresql://relay:p@ss@db/relay"],
                "its host holds an @: is there an @ or / in the password? Percent-encode them (@ as %40, / as %2F), "
                    + "or give the password by --password-file"
            ),
            ([], "usage: push-relay"),
        ] {
            let result = try await Self.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(problem), "\(arguments): \(result.stderr)")
        }
    }

    @Test func versionNamesLibcurl8WithHTTP2() async throws {
        let result = try await Self.run(["version"])
        #expect(result.status == 0)
        let curl = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("libcurl ") })
        #expect(curl.hasPrefix("libcurl 8."), "\(curl)")
        #expect(curl.contains("HTTP/2"), "\(curl)")
        #expect(!curl.contains("NO HTTP/2"), "\(curl)")
        #expect(!result.stdout.contains("WARNING"), "\(result.stdout)")
        let help = try await Self.run(["version", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: push-relay version"), "\(help.stdout)")
    }

    /// The C library, whose `malloc` a preload puts first.
    static func libc() throws -> String {
        try #require(
            ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6"].first {
                FileManager.default.fileExists(atPath: $0)
            }
        )
    }

    /// jemalloc serves the executable's allocations; the check that says so sees the C library's malloc
    /// when that one is found first (preloaded here), which leaves jemalloc serving C++ new and delete.
    @Test func versionNamesJemallocServingMalloc() async throws {
        let result = try await Self.run(["version"])
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("jemalloc") })
        #expect(line.hasPrefix("jemalloc 5."), "\(line)")
        #expect(!line.contains("NOT") && !result.stdout.contains("WARNING"), "\(result.stdout)")
        let preloaded = try await Self.run(["version"], environment: ["LD_PRELOAD": try Self.libc()])
        #expect(preloaded.stdout.contains("NOT serving malloc"), "\(preloaded.stdout)")
        #expect(preloaded.stdout.contains("while jemalloc serves C++ new and delete"), "\(preloaded.stdout)")
    }

    /// A process split between two allocators aborts at its first request: `serve` refuses to start so.
    @Test func serveRefusesToStartSplitBetweenTwoAllocators() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await Self.run(
            ["serve"],
            environment: [
                "LD_PRELOAD": try Self.libc(), "PUSH_RELAY_HTTP_PORT": "0",
                "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("relay.sqlite").path,
            ]
        )
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains(#""level":"critical""#), "\(result.stderr)")
        #expect(result.stderr.contains("push-relay serve refuses to start"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("relay.sqlite").path))
    }

    @Test func keysNewPrintsAKeyAndItsSHA256() async throws {
        var keys: Set<String> = []
        for _ in 0..<2 {
            let result = try await Self.run(["keys", "new"])
            #expect(result.status == 0)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let key = try #require(lines.first { $0.hasPrefix("API key: ") }).dropFirst("API key: ".count)
            let hash = try #require(lines.first { $0.hasPrefix("apiKeySHA256: ") }).dropFirst("apiKeySHA256: ".count)
            // A prefix tells a key from its hash (64 hex characters) wherever it is pasted.
            let hex = key.dropFirst("prk_".count)
            #expect(key.hasPrefix("prk_") && hex.count == 64 && hex.allSatisfy(\.isHexDigit), "\(key)")
            #expect(String(hash) == (try await Self.sha256Hex(String(key))))
            keys.insert(String(key))
        }
        #expect(keys.count == 2, "two runs gave the same key")
    }

    /// The key file is a P-256 private key (read back by the openssl command, not the relay's code), kept from
    /// others, and the printed public key is its point; an existing file is never replaced.
    @Test func keysVapidWritesAP256KeyAndPrintsItsPublicPoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("vapid.pem").path
        let result = try await Self.run(["keys", "vapid", "--out", file])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("applicationServerKey: ") })
        let printed = String(line.dropFirst("applicationServerKey: ".count))
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A P-256 SubjectPublicKeyInfo ends with the 65-byte uncompressed point.
        let (_, output) = try await ChildProcess.run(
            "/bin/sh",
            ["-c", "openssl ec -in \"$0\" -pubout -outform DER 2>/dev/null | tail -c 65 | base64 -w0", file]
        )
        let point = try #require(Data(base64Encoded: output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let base64URL = point.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(point.count == 65 && point.first == 0x04 && printed == base64URL)
        let again = try await Self.run(["keys", "vapid", "--out", file])
        #expect(again.status != 0 && again.stderr.contains("exists"))
        // A symbolic link, also one to nothing, is something there: refused the same way.
        let dangling = directory.url.appendingPathComponent("dangling.pem").path
        #expect(symlink(directory.url.appendingPathComponent("nothing").path, dangling) == 0)
        let linked = try await Self.run(["keys", "vapid", "--out", dangling])
        #expect(linked.status == 2 && linked.stderr.contains("exists: a new key"), "\(linked)")
    }

    /// SHA-256 of `text`'s UTF-8 bytes by coreutils' `sha256sum`: a check independent of the relay's code.
    static func sha256Hex(_ text: String) async throws -> String {
        let (_, output) = try await ChildProcess.run("/usr/bin/sha256sum", [], input: Data(text.utf8))
        return String(output.prefix { $0.isHexDigit })
    }
}
