import Foundation
import RelayAuth
import RelayCore
import RelayHTTP
import RelayTestSupport
import Testing

/// The Ditto auth webhook, served by a real HTTP server on loopback that counts its calls; time is a manual
/// clock, so cache expiry is tested without sleeping.
@Suite struct DittoWebhookTests {
    static func settings(_ url: String, timeoutMilliseconds: Int = 5000) -> Configuration.UserAuth.DittoAuthWebhook {
        .init(
            url: url,
            provider: "my-auth",
            maxCacheSeconds: 600,
            refusalCacheSeconds: 10,
            timeoutMilliseconds: timeoutMilliseconds
        )
    }

    static func authenticator(
        _ url: String,
        time: ManualTimeSource = ManualTimeSource(),
        timeoutMilliseconds: Int = 5000
    )
        -> DittoWebhookAuthenticator
    {
        DittoWebhookAuthenticator(
            settings: settings(url, timeoutMilliseconds: timeoutMilliseconds),
            time: time,
            logger: .disabled()
        )
    }

    /// Accepts as `user-<token>` for `expirationSeconds`.
    static func accepting(expirationSeconds: Int? = 3600) -> TestEndpoint.Answer {
        { request in
            let sent = try? JSONDecoder().decode([String: String].self, from: request.body)
            var answer: [String: Any] = ["authenticate": true, "userID": "user-\(sent?["token"] ?? "?")"]
            answer["expirationSeconds"] = expirationSeconds
            answer["permissions"] = ["read": ["everything": true]]
            return TestEndpoint.json(answer)
        }
    }

    @Test func theTokenIsPostedAsDittoDoesAndTheUserIDTaken() async throws {
        try await withEndpoint(Self.accepting()) { endpoint in
            let authenticator = Self.authenticator(endpoint.url("ditto-auth"))
            #expect(await outcome(authenticator, "opaque-token-1") == "user user-opaque-token-1")
            let request = try #require(endpoint.requests.first)
            #expect(request.method == "POST")
            #expect(request.path == "/ditto-auth")
            #expect(request.headers["content-type"] == "application/json")
            let body = try JSONDecoder().decode([String: String].self, from: request.body)
            #expect(body == ["token": "opaque-token-1", "provider": "my-auth"])
        }
    }

    /// The webhook's table: each answer and what the relay makes of it.
    @Test(arguments: [
        (200, #"{"authenticate": false, "userInfo": "revoked"}"#, "401 credential_refused"),
        (401, #"{"error": "no"}"#, "401 credential_refused"),
        (403, "", "401 credential_refused"),
        (500, "", "503 auth_unavailable"),
        (502, "", "503 auth_unavailable"),
        (429, "", "503 auth_unavailable"),
        (408, "", "503 auth_unavailable"),
        (302, "", "503 auth_unavailable"),
        (200, "not json", "503 auth_unavailable"),
        (200, #"{"userID": "alice"}"#, "503 auth_unavailable"),
        (200, #"{"authenticate": true}"#, "503 auth_unavailable"),
        (200, #"{"authenticate": true, "userID": "  "}"#, "503 auth_unavailable"),
        (200, #"{"authenticate": true, "userID": 7}"#, "503 auth_unavailable"),
        (200, #"{"authenticate": true, "userID": "alice", "expirationSeconds": 0}"#, "401 credential_refused"),
        (200, #"{"authenticate": true, "userID": "alice", "expirationSeconds": 60}"#, "user alice"),
        (200, #"{"authenticate": true, "userID": "alice"}"#, "user alice"),
        (204, "", "503 auth_unavailable"),
    ])
    func answer(status: Int, body: String, expected: String) async throws {
        try await withEndpoint({ _ in HTTPResponse(status: status, body: Data(body.utf8)) }) { endpoint in
            #expect(await outcome(Self.authenticator(endpoint.url()), "t") == expected)
        }
    }

    @Test func aWebhookThatIsDownIs503WithRetryAfterAndNeverCached() async throws {
        let authenticator = Self.authenticator(try await TestEndpoint.closedURL())
        for _ in 0..<2 {
            let error = await #expect(throws: UserAuthError.self) { try await authenticator.userId(forBearer: "t") }
            #expect(error?.status == 503)
            #expect(error?.code == "auth_unavailable")
            #expect(error?.retryAfterSeconds == DittoWebhookAuthenticator.retryAfterSeconds)
        }
    }

    /// Checks of one range past its share of the webhook's calls are refused 503 with a line a second at
    /// most, whatever their number.
    @Test func aFloodPastTheCallsWritesALineASecond() async throws {
        try await withEndpoint({ _ in
            try? await Task.sleep(for: .seconds(2))
            return TestEndpoint.json(["authenticate": true, "userID": "late"])
        }) { endpoint in
            let lines = MemoryLogHandler()
            let authenticator = DittoWebhookAuthenticator(
                settings: Self.settings(endpoint.url(), timeoutMilliseconds: 5000),
                time: ManualTimeSource(),
                logger: Logger(label: "test", handler: lines)
            )
            let range = IPNetwork("192.0.2.0/24")!
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        do {
                            _ = try await authenticator.userId(forBearer: "token-\(index)", from: range)
                            return "ok"
                        } catch { return (error as? UserAuthError)?.code ?? "other" }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "auth_unavailable" }.count >= 100)
            let busy = lines.entries.filter { $0.message == "no auth webhook call came free" }
            #expect(busy.count <= 3, "\(busy.count) lines")
        }
    }

    @Test func aSlowWebhookTimesOutAs503() async throws {
        try await withEndpoint({ _ in
            try? await Task.sleep(for: .seconds(3))
            return TestEndpoint.json(["authenticate": true, "userID": "late"])
        }) { endpoint in
            let authenticator = Self.authenticator(endpoint.url(), timeoutMilliseconds: 300)
            #expect(await outcome(authenticator, "t") == "503 auth_unavailable")
        }
    }

    @Test func a5xxIsNotCached() async throws {
        try await withEndpoint({ _ in HTTPResponse(status: 500) }) { endpoint in
            let authenticator = Self.authenticator(endpoint.url())
            #expect(await outcome(authenticator, "t") == "503 auth_unavailable")
            endpoint.answer(Self.accepting())
            #expect(await outcome(authenticator, "t") == "user user-t")
            #expect(endpoint.calls == 2)
        }
    }

    /// An acceptance is reused until the earlier of its `expirationSeconds` and maxCacheSeconds (600), then
    /// asked again; another token is asked on its own.
    @Test(arguments: [(120, 120), (7 * 24 * 3600, 600), (nil, 600)] as [(Int?, Int)])
    func anAcceptanceIsCachedUntilItsExpiryOrTheMaximum(_ expirationSeconds: Int?, _ kept: Int) async throws {
        try await withEndpoint(Self.accepting(expirationSeconds: expirationSeconds)) { endpoint in
            let time = ManualTimeSource()
            let authenticator = Self.authenticator(endpoint.url(), time: time)
            #expect(await outcome(authenticator, "t") == "user user-t")
            time.advance(by: .seconds(kept - 1))
            #expect(await outcome(authenticator, "t") == "user user-t")
            #expect(endpoint.calls == 1)
            #expect(await outcome(authenticator, "other") == "user user-other")
            #expect(endpoint.calls == 2)
            time.advance(by: .seconds(2))
            #expect(await outcome(authenticator, "t") == "user user-t")
            #expect(endpoint.calls == 3)
        }
    }

    /// The webhook's decision changes (a session revoked): the refusal is kept for refusalCacheSeconds, then
    /// asked again.
    @Test func aRefusalIsCachedBriefly() async throws {
        try await withEndpoint({ _ in TestEndpoint.json(["authenticate": false]) }) { endpoint in
            let time = ManualTimeSource()
            let authenticator = Self.authenticator(endpoint.url(), time: time)
            #expect(await outcome(authenticator, "t") == "401 credential_refused")
            time.advance(by: .seconds(9))
            #expect(await outcome(authenticator, "t") == "401 credential_refused")
            #expect(endpoint.calls == 1)
            endpoint.answer(Self.accepting())
            time.advance(by: .seconds(2))
            #expect(await outcome(authenticator, "t") == "user user-t")
            #expect(endpoint.calls == 2)
        }
    }

    @Test func concurrentRequestsForOneTokenShareOneCall() async throws {
        let gate = Gate()
        let accept = Self.accepting()
        try await withEndpoint({ request in
            await gate.wait()
            return await accept(request)
        }) { endpoint in
            let authenticator = Self.authenticator(endpoint.url())
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { await outcome(authenticator, "t") } }
                try await Task.sleep(for: .milliseconds(200))
                gate.open()
                for try await result in group { #expect(result == "user user-t") }
            }
            #expect(endpoint.calls == 1)
        }
    }

    @Test func anOversizedTokenIsRefusedWithoutACall() async throws {
        try await withEndpoint(Self.accepting()) { endpoint in
            let token = String(repeating: "x", count: 8193)
            #expect(await outcome(Self.authenticator(endpoint.url()), token) == "401 token_too_large")
            #expect(endpoint.calls == 0)
        }
    }

    @Test func logsNameTheTokenByItsDigestOnly() async throws {
        try await withEndpoint({ _ in TestEndpoint.json(["authenticate": false]) }) { endpoint in
            let memory = MemoryLogHandler()
            let authenticator = DittoWebhookAuthenticator(
                settings: Self.settings(endpoint.url()),
                time: ManualTimeSource(),
                logger: Logger(label: "test", level: .trace, handler: memory)
            )
            let token = "secret-session-token-\(UUID().uuidString)"
            #expect(await outcome(authenticator, token) == "401 credential_refused")
            #expect(!memory.entries.isEmpty)
            for entry in memory.entries {
                #expect(!"\(entry.message) \(entry.metadata)".contains(token))
                #expect(entry.metadata["token.sha256"]?.count == 12)
            }
        }
    }
}
