import Foundation
import RelayTestSupport
import Testing

/// Issue 23 as an operator meets it: a configuration file is strict JSON with errors at a line and column,
/// `serve` reports what stops its start as a JSON line, the PostgreSQL password can come from a file, and a
/// SQLite file serves one relay whatever its instance id.
@Suite struct OperatorConfigTests {
    /// A file that is not strict JSON, where jansson stops, and its reason.
    static let notStrict: [(text: String, place: String, reason: String)] = [
        (#"{ "http": {"port": 8080,},"# + "\n" + #" "log": {} }"#, "line 1, column 25", "string or '}' expected"),
        (#"{ "log": {"level": "info"},"# + "\n" + #" "log": {} }"#, "line 2, column 6", "duplicate object key"),
        ("{\n  // the log\n" + #"  "log": {} }"#, "line 2, column 3", "string or '}' expected"),
    ]

    @Test(arguments: notStrict)
    func aFileThatIsNotStrictJSONIsRefusedAtItsLineAndColumn(
        text: String,
        place: String,
        reason: String
    )
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("relay.json")
        try Data(text.utf8).write(to: file)
        let check = try await CommandTests.run(["config", "check", "--config", file.path])
        #expect(check.status == 1)
        #expect(check.stderr.contains("\(file.path): not strict JSON: \(place): \(reason)"), "\(check.stderr)")
        #expect(!check.stdout.contains("{"), "printed a configuration: \(check.stdout)")

        // serve stops at the same place, saying so in a JSON line like every other.
        let serve = try RelayProcess(["serve", "--config", file.path], outputIn: directory.url, name: "serve")
        #expect(try await serve.exitStatus().status == 1)
        let lines = try ServeLogTests.objects(serve.stderr)
        let line = try #require(lines.first { $0["msg"] as? String == "invalid configuration" }, "\(serve.stderr)")
        #expect(line["level"] as? String == "critical")
        #expect((line["problems"] as? String)?.contains(place) == true, "\(line)")
    }

    /// `serve --admin-port` sets the admin listener's port, checked with the rest of the configuration.
    @Test func serveTakesTheAdminPortFromItsOption() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let serve = try directory.serve(arguments: ["--admin-port", "70000"])
        #expect(try await serve.exitStatus().status == 1)
        let lines = try ServeLogTests.objects(serve.stderr)
        let line = try #require(lines.first { $0["msg"] as? String == "invalid configuration" }, "\(serve.stderr)")
        let problems = line["problems"] as? String
        #expect(problems?.contains("http.admin.port: must be 0...65535, is 70000") == true, "\(line)")
    }

    /// `PUSH_RELAY_APPS` is strict JSON like the file, and a problem with it never shows its text: an app's
    /// webhook secret may be in it, and `serve` logs its problems.
    @Test func anAppsVariableIsStrictJSONAndNeverShown() async throws {
        let secret = "TOPSECRET-webhook-0123456789"
        let app = #"{"id":"x","topic":"t","apiKeySHA256":["\#(String(repeating: "a", count: 64))"],"#
        let cases: [(value: String, problem: String)] = [
            ("[" + app + #""webhookSecret":"\#(secret)"}"#, "PUSH_RELAY_APPS: not strict JSON: line 1, column"),
            ("[" + app + #""webhookSecret":"\#(secret)\q"}]"#, "PUSH_RELAY_APPS: not strict JSON: line 1, column"),
            // jansson quotes a token of up to 20 characters (`invalid escape near '"TOPSECRET\q'`).
            ("[" + app + #""webhookSecret":"TOPSECRET\q"}]"#, "PUSH_RELAY_APPS: not strict JSON: line 1, column"),
            ("[" + app + #""webhookSecret":"TOPSECRET\uDC01"}]"#, "PUSH_RELAY_APPS: not strict JSON: line 1, column"),
            ("[" + app + #""id":"y","webhookSecret":"\#(secret)"}]"#, "duplicate object key"),
            ("[" + app + #""webhookSecret":"\#(secret)",}]"#, "PUSH_RELAY_APPS: not strict JSON"),
        ]
        for (value, problem) in cases {
            let check = try await CommandTests.run(["config", "check"], environment: ["PUSH_RELAY_APPS": value])
            #expect(check.status == 1, "\(value)")
            #expect(check.stderr.contains(problem), "\(check.stderr)")
            #expect(!check.stderr.contains("TOPSECRET") && !check.stdout.contains("TOPSECRET"), "\(check.stderr)")
        }
    }

    /// `storage.postgres.passwordFile` must be readable and is the password's only place; `config check`
    /// shows its path, never the password, and a URL's userinfo never whatever it holds.
    @Test func thePasswordFileIsCheckedAndItsPasswordNeverShown() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("pg-password")
        try Data("Pw/9f3k@x\n".utf8).write(to: file)
        let url = "postgresql://relay@db.internal:5432/relay"
        let accepted = try await CommandTests.run(
            ["config", "check"],
            environment: [
                "PUSH_RELAY_STORAGE_POSTGRES_URL": url, "PUSH_RELAY_STORAGE_POSTGRES_PASSWORD_FILE": file.path,
            ]
        )
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains(file.path) && !accepted.stdout.contains("9f3k"), "\(accepted.stdout)")
        #expect(accepted.stdout.contains("postgresql://redacted@db.internal:5432/relay"), "\(accepted.stdout)")

        let missing = try await CommandTests.run(
            ["config", "check"],
            environment: [
                "PUSH_RELAY_STORAGE_POSTGRES_URL": url,
                "PUSH_RELAY_STORAGE_POSTGRES_PASSWORD_FILE": directory.url.appendingPathComponent("none").path,
            ]
        )
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("storage.postgres.passwordFile: cannot read"), "\(missing.stderr)")

        let twice = try await CommandTests.run(
            ["config", "check"],
            environment: [
                "PUSH_RELAY_STORAGE_POSTGRES_URL": "postgresql://relay:other@db.internal/relay",
                "PUSH_RELAY_STORAGE_POSTGRES_PASSWORD_FILE": file.path,
            ]
        )
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("holds a password already"), "\(twice.stderr)")
        #expect(!twice.stderr.contains("other") && !twice.stderr.contains("9f3k"), "\(twice.stderr)")

        // An unencoded password holding '@' and '/' is redacted whole.
        let unencoded = try await CommandTests.run(
            ["config", "check"],
            environment: ["PUSH_RELAY_STORAGE_POSTGRES_URL": "postgresql://relay:redacted@Pw/9f3k@db.internal/relay"]
        )
        #expect(!unencoded.stdout.contains("9f3k") && !unencoded.stderr.contains("9f3k"), "\(unencoded)")

        // An unencoded '@' alone lands in the host, or with a '/' after digits in the database name: refused,
        // with the advice, and nothing of it shown.
        for url in [
            "postgresql://relay:S3cr3t@pw@db.internal/relay", "postgresql://relay:S3cr3t/pw@db.internal:5432/relay",
            "postgresql://relay:1234/S3cr3t@db.internal/relay",
        ] {
            let spilled = try await CommandTests.run(
                ["config", "check"],
                environment: ["PUSH_RELAY_STORAGE_POSTGRES_URL": url]
            )
            #expect(spilled.status == 1, "\(url): \(spilled)")
            #expect(spilled.stderr.contains("Percent-encode them (@ as %40"), "\(spilled.stderr)")
            #expect(!spilled.stderr.contains("S3cr3t") && !spilled.stdout.contains("S3cr3t"), "\(spilled)")
        }
    }

    /// `storage copy --password-file` reads the password as `passwordFile` does, refusing a second one.
    @Test func storageCopyTakesThePasswordFromAFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("pg-password")
        try Data("Pw/9f3k@x\n".utf8).write(to: file)
        let source = "sqlite:" + directory.url.appendingPathComponent("none.sqlite").path
        let missing = try await CommandTests.run([
            "storage", "copy", "--from", source, "--to", "postgres:postgresql://relay@127.0.0.1:1/relay",
            "--password-file", directory.url.appendingPathComponent("none").path,
        ])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--password-file: cannot read"), "\(missing.stderr)")
        let twice = try await CommandTests.run([
            "storage", "copy", "--from", source, "--to", "postgres:postgresql://relay:s3cret@127.0.0.1:1/relay",
            "--password-file", file.path,
        ])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("holds a password already"), "\(twice.stderr)")
        #expect(!twice.stderr.contains("s3cret") && !twice.stderr.contains("9f3k"), "\(twice.stderr)")
    }

    /// Two relays on one SQLite file with different instance ids: the second does not start and says who
    /// holds the file, in a JSON line, having written nothing beside it (the first's development files, its
    /// mocks' ports and keys, stay as they are); the first keeps serving.
    @Test func aSecondRelayOnOneSQLiteFileDoesNotStartWhateverItsId() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func serve(_ id: String) throws -> RelayProcess {
            try RelayProcess(
                ["serve", "--port", "0"],
                environment: [
                    "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("db.sqlite").path,
                    "PUSH_RELAY_DELIVERY_INSTANCE_ID": id,
                ],
                outputIn: directory.url,
                name: id
            )
        }
        /// The development files in the folder, by name, with their contents.
        func developmentFiles() throws -> [String: Data] {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            return try Dictionary(
                uniqueKeysWithValues: names.filter { $0.hasPrefix("dev-") }.map { name in
                    (name, try Data(contentsOf: directory.url.appendingPathComponent(name)))
                }
            )
        }
        let first = try serve("relay-a")
        let port = try await first.listeningPort()
        let written = try developmentFiles()
        #expect(written.keys.contains("dev-webpush-port") && written.keys.contains("dev-api-key"), "\(written.keys)")
        let second = try serve("relay-b")
        #expect(try await second.exitStatus().status == 1)
        #expect(try developmentFiles() == written)
        let lines = try ServeLogTests.objects(second.stderr)
        let line = try #require(lines.first { $0["msg"] as? String == "cannot start" }, "\(second.stderr)")
        let error = try #require(line["error"] as? String)
        #expect(error.contains("in use by another live relay") && error.contains("'relay-a'"), "\(error)")
        #expect(try await HealthCommandTests.health(["--port", "\(port)"]).status == 0)
        first.signal(SIGTERM)
        #expect(try await first.exitStatus().status == 0)
    }

    /// A port another relay holds stops the start with a critical JSON line, exit status 1.
    @Test func aPortInUseIsAJSONLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func serve(_ name: String, port: Int) throws -> RelayProcess {
            try RelayProcess(
                ["serve", "--port", "\(port)"],
                environment: [
                    "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("\(name).sqlite").path,
                    "PUSH_RELAY_HTTP_ADMIN_ENABLED": "false",
                ],
                outputIn: directory.url,
                name: name
            )
        }
        let first = try serve("first", port: 0)
        let port = try await first.listeningPort()
        let second = try serve("second", port: port)
        #expect(try await second.exitStatus().status == 1)
        let lines = try ServeLogTests.objects(second.stderr)
        let line = try #require(lines.first { $0["msg"] as? String == "cannot start" }, "\(second.stderr)")
        #expect(line["level"] as? String == "critical", "\(line)")
        // Says what to do about it.
        #expect((line["error"] as? String)?.contains("choose another port") == true, "\(line)")
        first.signal(SIGTERM)
        #expect(try await first.exitStatus().status == 0)
    }
}
