import Foundation
import RelayTestSupport
import Testing

/// `push-relay send --platform android` against `push-relay mock-fcm`: both real processes, the message
/// over real HTTP/2, the mock's record file as the witness.
@Suite struct SendFCMCommandTests {
    static let token = "cli-send-device:APA91b" + String(repeating: "Qz_-", count: 35)

    /// The request body FCM HTTP v1 takes, as far as `send` fills it.
    struct SentBody: Decodable {
        struct Message: Decodable {
            struct Android: Decodable {
                var priority: String
                var ttl: String
                var notification: [String: String]?
            }
            var token: String
            var notification: [String: String]?
            var data: [String: String]?
            var android: Android
        }
        var message: Message
    }

    /// `send --platform android` to `mock` with `options`.
    static func send(
        _ token: String,
        to mock: MockFCMProcess,
        tls: Bool,
        _ options: [String] = []
    ) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try await CommandTests.run(
            ["send", "--platform", "android", "--token", token, "--service-account", mock.accountFile]
                + ["--endpoint", mock.server.baseURL] + (tls ? ["--ca", MockProcess.caFile] : []) + options
        )
    }

    /// The one JSON object `send` printed.
    static func answer(_ stdout: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(stdout)")
    }

    @Test(arguments: [false, true])
    func anAcceptedMessageExits0AndTheMockGotItAsGiven(tls: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mock = try await MockFCMProcess(in: directory.url, tls: tls)
        let result = try await Self.send(
            Self.token,
            to: mock,
            tls: tls,
            [
                "--title", "Team", "--body", "Alice: hi", "--data", "dittoChatRoomId=general", "--data",
                "note=a=b", "--ttl", "60", "--tag", "msg-1",
            ]
        )
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let answer = try Self.answer(result.stdout)
        #expect(answer["status"] as? Int == 200)
        #expect(answer["fate"] as? String == "delivered")
        let name = try #require(answer["name"] as? String)
        #expect(name.hasPrefix("projects/\(MockFCMProcess.project)/messages/"), "\(name)")
        #expect(!result.stdout.contains(Self.token) && !result.stderr.contains(Self.token))

        let recorded = try #require(try await mock.recorded(count: 1).first)
        #expect(recorded.status == 200)
        #expect(recorded.token == Self.token)
        let message = try JSONDecoder().decode(SentBody.self, from: Data(recorded.body.utf8)).message
        #expect(message.token == Self.token)
        #expect(message.notification == ["title": "Team", "body": "Alice: hi"])
        #expect(message.data == ["dittoChatRoomId": "general", "note": "a=b"])
        #expect(message.android.priority == "HIGH")
        #expect(message.android.ttl == "60s")
        #expect(message.android.notification == ["tag": "msg-1"])
        #expect(try await mock.server.stop() == 0)
    }

    /// FCM's refusals exit 1 and print FCM's answer with the fate the relay gives the token.
    @Test func refusalsExit1WithFCMsAnswerAndTheTokensFate() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gone = "gone-device:APA91b" + String(repeating: "u", count: 140)
        let busy = "busy-device:APA91b" + String(repeating: "b", count: 140)
        let misconfigured = "apns-key-wrong:APA91b" + String(repeating: "t", count: 140)
        let script = directory.url.appendingPathComponent("script.json")
        try Data(
            """
            {"devices": [{"token": "\(gone)", "error": "UNREGISTERED"},
                         {"token": "\(busy)", "error": "QUOTA_EXCEEDED", "retryAfter": 30},
                         {"token": "\(misconfigured)", "error": "THIRD_PARTY_AUTH_ERROR"}]}
            """.utf8
        ).write(to: script)
        let mock = try await MockFCMProcess(in: directory.url, tls: false, arguments: ["--script", script.path])
        let rows: [(token: String, expected: [String: any Sendable])] = [
            (gone, ["status": 404, "errorCode": "UNREGISTERED", "errorStatus": "NOT_FOUND", "fate": "retire"]),
            (busy, ["status": 429, "errorCode": "QUOTA_EXCEEDED", "fate": "retry", "retryAfterSeconds": 30]),
            (
                misconfigured,
                ["status": 401, "errorCode": "THIRD_PARTY_AUTH_ERROR", "fate": "credentials_refused"]
            ),
        ]
        for row in rows {
            let result = try await Self.send(row.token, to: mock, tls: false)
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            let answer = try Self.answer(result.stdout)
            for (key, value) in row.expected {
                #expect("\(answer[key] ?? "absent")" == "\(value)", "\(key) in \(result.stdout)")
            }
            #expect(answer["name"] == nil)
            #expect(answer["message"] is String, "\(result.stdout)")
        }
        #expect(try await mock.recorded(count: 3).map(\.errorCode) == rows.map { $0.expected["errorCode"] as? String })
        #expect(try await mock.server.stop() == 0)
    }

    /// A usage mistake exits 2 naming it, before anything is sent (none of these reach a server).
    @Test func usageMistakesExit2NamingThem() async throws {
        let account = ["--service-account", "/nonexistent/account.json"]
        for (arguments, problem) in [
            (
                ["--token", "has space:APA91b" + String(repeating: "x", count: 40)] + account,
                "--token: FCM registration token may hold only"
            ),
            (["--token", "short:APA91b"] + account, "--token: FCM registration token must be 32 to 1024 characters"),
            (["--token", Self.token], "--service-account FILE is required with --platform android"),
            (["--token", Self.token] + account, "cannot read service account file /nonexistent/account.json"),
            (
                ["--token", Self.token, "--topic", "com.example.chat"] + account,
                "--topic is for --platform ios, not android"
            ),
            (["--token", Self.token, "--data", "from=me"] + account, "--data key 'from' is reserved by FCM"),
            (["--token", Self.token, "--data", "=x"] + account, "--data '=x' must be KEY=VALUE"),
            (["--token", Self.token, "--ttl", "2419201"] + account, "--ttl must be 0 to 2419200 seconds"),
        ] {
            let result = try await CommandTests.run(["send", "--platform", "android"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(problem), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        }
        for (arguments, problem) in [
            (["--token", Self.token] + account, "--service-account is for --platform android, not ios"),
            (["--platform", "windows"], "--platform 'windows' must be ios, android or web"),
        ] {
            let result = try await CommandTests.run(["send"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(problem), "\(arguments): \(result.stderr)")
        }
    }
}
