import Foundation
import RelayTestSupport
import Testing

/// `push-relay serve` on its embedded defaults takes user credentials for its development app: tokens that
/// `push-relay keys user-token` signs with the key it made, as the command it prints says, so a client
/// library is tried against it as an app's users call it.
@Suite struct DevelopmentUserTokenTests {
    @Test func aTokenFromThePrintedCommandActsAsItsUser() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.url.appendingPathComponent("data")
        let (relay, _) = try await RelayProcess.development(data: data, in: directory.url, name: "dev", mock: "APNs")
        let port = try await relay.listeningPort()
        let printed = try await relay.line(startingWith: "User tokens (with X-PushRelay-App: dev): ")
        let keyFile = data.appendingPathComponent("dev-user-key.pem").path
        let words = printed.split(separator: " ").map(String.init)
        // The program as it was started, which need not be on the PATH.
        #expect(words.first?.hasSuffix("/push-relay") == true, "\(printed)")
        #expect(words.dropFirst() == ["keys", "user-token", "--key", keyFile, "--user", "<id>"])

        let made = try await CommandTests.run(["keys", "user-token", "--key", keyFile, "--user", "alice"])
        #expect(made.status == 0, "\(made.stderr)")
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let call = { (method: String, path: String, json: Any?, app: String) in
            try await exchange(
                port: port,
                method,
                path,
                bearer: token,
                json: json,
                body: nil,
                headers: ["X-PushRelay-App": app]
            )
        }
        let registered = try await call(
            "POST",
            "/v1/devices",
            ["token": String(repeating: "ab", count: 32), "rooms": ["general"]],
            "dev"
        )
        #expect(registered.status == 201, "\(String(decoding: registered.body, as: UTF8.self))")
        let device = try #require(try JSONSerialization.jsonObject(with: registered.body) as? [String: Any])
        #expect(device["userId"] as? String == "alice")
        // The token is alice's only: another user's devices are refused, and another app's header fails.
        #expect(try await call("GET", "/v1/users/bob/devices", nil, "dev").status == 403)
        #expect(try await call("GET", "/v1/users/alice/devices", nil, "other").status == 401)

        // A token signed by another key is refused.
        let stranger = directory.url.appendingPathComponent("stranger.pem").path
        #expect(try await CommandTests.run(["keys", "vapid", "--out", stranger]).status == 0)
        let forged = try await CommandTests.run(["keys", "user-token", "--key", stranger, "--user", "alice"])
        let refused = try await exchange(
            port: port,
            "GET",
            "/v1/users/alice/devices",
            bearer: forged.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            json: nil,
            body: nil,
            headers: ["X-PushRelay-App": "dev"]
        )
        #expect(refused.status == 401)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)
    }

    @Test func userTokenRefusesWhatItCannotSign() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notAKey = directory.url.appendingPathComponent("not-a-key.pem").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notAKey))
        for (arguments, message) in [
            (["--user", "alice"], "needs --key FILE and --user ID"),
            (["--key", notAKey, "--user", "alice"], "not a P-256 private key"),
            (["--key", notAKey + ".missing", "--user", "alice"], "(no such file)"),
            (["--key", directory.url.path, "--user", "alice"], "(a directory)"),
            (["--key", notAKey, "--user", "alice", "--hours", "721"], "at most 720"),
            // A user id the relay would refuse in the token: no token is made.
            (["--key", notAKey, "--user", ""], "--user must not be empty"),
            (["--key", notAKey, "--user", "a\nb"], "--user must not contain control characters"),
            (["--key", notAKey, "--user", String(repeating: "u", count: 257)], "--user must be at most 256 bytes"),
        ] {
            let result = try await CommandTests.run(["keys", "user-token"] + arguments)
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
