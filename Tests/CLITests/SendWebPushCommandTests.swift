import Foundation
import RelayTestSupport
import Testing

/// `push-relay send --platform web` against `push-relay mock-webpush`: both real processes, the push over
/// real HTTP/2, encrypted and VAPID-signed; the mock's record file (what it decrypted) as the witness.
@Suite struct SendWebPushCommandTests {
    /// `send --platform web` of `mock`'s subscription, signed with its VAPID key, with `options`.
    static func send(
        to mock: MockWebPushProcess,
        tls: Bool,
        _ options: [String] = []
    ) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try await CommandTests.run(
            ["send", "--platform", "web", "--subscription", mock.subscriptionFile, "--vapid-key", mock.vapidKeyFile]
                + (tls ? ["--ca", MockProcess.caFile] : []) + options
        )
    }

    @Test func aPlainPushIsAcceptedAndTheMockDecryptedItAsGiven() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mock = try await MockWebPushProcess(in: directory.url, tls: false)
        let result = try await Self.send(
            to: mock,
            tls: false,
            ["--title", "Team", "--body", "Alice: hi", "--room", "general", "--ttl", "60"]
        )
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let answer = try SendFCMCommandTests.answer(result.stdout)
        #expect(answer["status"] as? Int == 201)
        #expect(answer["fate"] as? String == "delivered")
        #expect((answer["messageId"] as? String)?.isEmpty == false, "\(result.stdout)")
        let endpoint = try mock.endpoint()
        #expect(!result.stdout.contains(endpoint) && !result.stderr.contains(endpoint))

        let recorded = try #require(try await mock.recorded(count: 1).first)
        #expect(recorded["status"] as? Int == 201)
        #expect(endpoint.hasSuffix("/push/" + (recorded["endpointId"] as? String ?? "-")))
        #expect(recorded["shape"] as? String == "plain")
        #expect(recorded["ttl"] as? Int == 60)
        #expect(recorded["urgency"] as? String == "high")
        #expect(recorded["vapidSubject"] as? String == "mailto:push-relay@localhost")
        #expect(recorded["vapidAudience"] as? String == mock.server.baseURL)
        let payload = try #require(recorded["payload"] as? [String: Any])
        #expect(payload["title"] as? String == "Team")
        #expect(payload["body"] as? String == "Alice: hi")
        #expect(payload["dittoChatRoomId"] as? String == "general")
        #expect(try await mock.server.stop() == 0)
    }

    /// Over TLS (the mock's CA given with `--ca`), the declarative shape with its navigate URL filled, the
    /// Topic made from `--message-id` and the subject given.
    @Test func aDeclarativePushOverTLSCarriesItsNavigateURLAndTopic() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mock = try await MockWebPushProcess(in: directory.url, tls: true)
        #expect(mock.server.baseURL.hasPrefix("https://"))
        let result = try await Self.send(
            to: mock,
            tls: true,
            [
                "--body", "Alice: hi", "--room", "room 1", "--message-id", "m-1", "--subject", "mailto:ops@example.com",
                "--declarative", "--open-url", "https://chat.example.com/rooms/{roomId}?message={messageId}",
            ]
        )
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(try SendFCMCommandTests.answer(result.stdout)["fate"] as? String == "delivered")
        let recorded = try #require(try await mock.recorded(count: 1).first)
        #expect(recorded["shape"] as? String == "declarative")
        #expect(recorded["vapidSubject"] as? String == "mailto:ops@example.com")
        #expect((recorded["topic"] as? String)?.isEmpty == false)
        let payload = try #require(recorded["payload"] as? [String: Any])
        #expect(payload["web_push"] as? Int == 8030)
        let notification = try #require(payload["notification"] as? [String: Any])
        #expect(notification["title"] as? String == "Alice: hi")
        #expect(notification["navigate"] as? String == "https://chat.example.com/rooms/room%201?message=m-1")
        #expect(try await mock.server.stop() == 0)
    }

    /// The push service's refusals exit 1 and print its answer with the fate the relay gives the
    /// subscription.
    @Test func refusalsExit1WithTheAnswerAndTheSubscriptionsFate() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let script = directory.url.appendingPathComponent("script.json")
        try Data(
            """
            {"endpoints": [{"id": "*", "status": 410, "count": 1},
                           {"id": "*", "status": 429, "retryAfter": 30, "count": 1}]}
            """.utf8
        ).write(to: script)
        let mock = try await MockWebPushProcess(in: directory.url, tls: false, arguments: ["--script", script.path])
        let rows: [[String: any Sendable]] = [
            ["status": 410, "reason": "Gone", "fate": "retire"],
            ["status": 429, "reason": "TooManyRequests", "fate": "retry", "retryAfterSeconds": 30],
        ]
        for expected in rows {
            let result = try await Self.send(to: mock, tls: false)
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            let answer = try SendFCMCommandTests.answer(result.stdout)
            for (key, value) in expected {
                #expect("\(answer[key] ?? "absent")" == "\(value)", "\(key) in \(result.stdout)")
            }
            #expect(answer["messageId"] == nil)
        }
        #expect(try await mock.recorded(count: 2).map { $0["status"] as? Int } == [410, 429])
        #expect(try await mock.server.stop() == 0)
    }

    /// A usage mistake exits 2 naming it, before anything is sent (none of these reach a server).
    @Test func usageMistakesExit2NamingThem() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let made = try await CommandTests.run(
            ["mock-webpush", "--new-subscription", "--url", "https://push.example.com", "--subscriptions"]
                + [directory.url.appendingPathComponent("subscriptions").path]
        )
        #expect(made.status == 0, "\(made.stderr)")
        let remote = directory.url.appendingPathComponent("remote.json").path
        try Data(made.stdout.utf8).write(to: URL(fileURLWithPath: remote))
        let key = directory.url.appendingPathComponent("vapid.pem").path
        #expect(try await CommandTests.run(["keys", "vapid", "--out", key]).status == 0)
        let notJSON = directory.url.appendingPathComponent("not.json").path
        try Data("endpoint=x".utf8).write(to: URL(fileURLWithPath: notJSON))
        let keyless = directory.url.appendingPathComponent("keyless.json").path
        try Data(#"{"endpoint": "https://push.example.com/x", "keys": {"auth": "x"}}"#.utf8)
            .write(to: URL(fileURLWithPath: keyless))
        let missing = directory.url.appendingPathComponent("missing.json").path
        let given = ["--subscription", remote, "--vapid-key", key]
        for (arguments, problem) in [
            (["--vapid-key", key], "--subscription FILE is required with --platform web"),
            (["--subscription", remote], "--vapid-key FILE is required with --platform web"),
            (["--subscription", notJSON, "--vapid-key", key], #"{"p256dh", "auth"}}): not JSON"#),
            (["--subscription", keyless, "--vapid-key", key], #""auth"}}): keys.p256dh: is required"#),
            (["--subscription", missing, "--vapid-key", key], "--subscription \(missing): no such file"),
            (["--subscription", remote, "--vapid-key", directory.url.path], "\(directory.url.path): a directory"),
            (["--subscription", remote, "--vapid-key", remote], "--vapid-key \(remote): not a P-256 private key"),
            (given + ["--ca", MockProcess.caFile], "are for a mock push service on loopback"),
            (given + ["--declarative"], "--open-url is required with declarative"),
            (given + ["--subject", "ops@example.com"], "subject:"),
            (given + ["--ttl", "-1"], "--ttl must not be negative"),
            (given + ["--token", "abcd"], "--token is for --platform ios or android, not web"),
            (given + ["--tag", "t", "--topic", "x"], "--tag, --topic are for --platform ios or android, not web"),
        ] {
            let result = try await CommandTests.run(["send", "--platform", "web"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(problem), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("CodingKeys") && !result.stderr.contains("NSCocoaErrorDomain"))
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        }
        let stray = try await CommandTests.run(["send", "--token", "ab", "--subscription", remote, "--declarative"])
        #expect(stray.status == 2)
        #expect(
            stray.stderr.contains("--declarative, --subscription are for --platform web, not ios"),
            "\(stray.stderr)"
        )
    }
}
