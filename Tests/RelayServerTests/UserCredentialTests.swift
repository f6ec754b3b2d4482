import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayTestSupport
import Testing

/// User credentials through the whole relay: an app's `userAuth` turns `Authorization: Bearer <token>` with
/// `X-PushRelay-App` into the caller's user id, or into the refusal's status and code.
@Suite struct UserCredentialTests {
    static func jwt(_ user: String, expiresIn: Int = 600) throws -> String {
        try UserTokenIssuer.shared.token(for: user, expiresIn: expiresIn)
    }

    @Test func aJWTMakesTheCallerItsUser() async throws {
        try await withRelayAndMock(configure: {
            $0.apps[0].userAuth = UserTokenIssuer.shared.userAuth
        }) {
            relay in
            let app = ["X-PushRelay-App": relay.app.id]
            let token = randomToken()
            let registered = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": token],
                key: try Self.jwt("alice"),
                headers: app
            )
            #expect(registered.status == 201, "\(registered.text)")
            #expect(try registered.decode(DeviceJSON.self).userId == "alice")
            let expired = try await relay.call(
                "GET",
                "/v1/users/alice/devices",
                key: try Self.jwt("alice", expiresIn: -3600),
                headers: app
            )
            #expect(expired.status == 401 && expired.error?.code == "token_expired")
            #expect(expired.header("WWW-Authenticate") == "Bearer")
            // The backend's key still works as before.
            #expect(try await relay.devices(of: "alice").map(\.token) == [token])
        }
    }

    /// Every refusal before the token proved to be the app's is one answer: a stranger learns neither which
    /// apps exist, nor which take user credentials, nor what is wrong with a token. A JWT the app's key
    /// signed names its fault.
    @Test func everyRefusalBeforeASignatureVerifiedIsInvalidCredential() async throws {
        try await withRelayAndMock(
            appCount: 2,
            configure: {
                $0.apps[0].userAuth = UserTokenIssuer.shared.userAuth
            }
        ) { relay in
            let stranger = try UserTokenIssuer()
            let cases: [(name: String, app: String, token: String)] = [
                ("an unknown app", "no-such-app", try Self.jwt("alice")),
                ("an app without userAuth", relay.apps[1].id, try Self.jwt("alice")),
                ("not a JWT", relay.app.id, "opaque-junk"),
                ("unsigned", relay.app.id, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9."),
                ("another issuer's key", relay.app.id, try stranger.token(for: "alice")),
                ("an API key", relay.app.id, relay.apps[1].apiKey),
            ]
            var bodies: Set<Data> = []
            for (name, app, token) in cases {
                let answer = try await relay.call(
                    "GET",
                    "/v1/users/alice/devices",
                    key: token,
                    headers: ["X-PushRelay-App": app]
                )
                #expect(answer.status == 401 && answer.error?.code == "invalid_credential", "\(name): \(answer.text)")
                #expect(answer.header("WWW-Authenticate") == "Bearer", "\(name)")
                bodies.insert(answer.body)
            }
            #expect(
                bodies.count == 1,
                "one message for every case: \(bodies.map { String(decoding: $0, as: UTF8.self) })"
            )
            let expired = try await relay.call(
                "GET",
                "/v1/users/alice/devices",
                key: try Self.jwt("alice", expiresIn: -3600),
                headers: ["X-PushRelay-App": relay.app.id]
            )
            #expect(expired.status == 401 && expired.error?.code == "token_expired", "\(expired.text)")
        }
    }

    @Test func aWebhookThatIsDownIs503WithRetryAfter() async throws {
        // Port 1 (tcpmux): nothing listens there, and no test's port-0 server can take it in the meantime.
        let url = "http://127.0.0.1:1/auth"
        try await withRelayAndMock(configure: {
            $0.apps[0].userAuth = .init(dittoAuthWebhook: .init(url: url, provider: "my-auth"))
        }) { relay in
            let answer = try await relay.call(
                "GET",
                "/v1/users/alice/devices",
                key: "opaque-session-token",
                headers: ["X-PushRelay-App": relay.app.id]
            )
            #expect(answer.status == 503 && answer.error?.code == "auth_unavailable")
            #expect(answer.header("Retry-After") == "5")
        }
    }

    /// A check the webhook could not answer counts against the client like a refusal: junk against a webhook
    /// that times out must not go through uncounted.
    @Test func checksTheWebhookCouldNotAnswerCountAgainstTheClient() async throws {
        let url = "http://127.0.0.1:1/auth"
        try await withRelayAndMock(configure: {
            $0.apps[0].userAuth = .init(dittoAuthWebhook: .init(url: url, provider: "my-auth"))
            $0.http.credentialFailures.perAddressBurst = 2
            // Drains one check a minute, so a slow run does not free room between the three calls.
            $0.http.credentialFailures.perAddressPerMinute = 1
        }) { relay in
            var statuses: [Int] = []
            for index in 0..<3 {
                let answer = try await relay.call(
                    "GET",
                    "/v1/users/alice/devices",
                    key: "session-\(index)",
                    headers: ["X-PushRelay-App": relay.app.id]
                )
                statuses.append(answer.status)
            }
            #expect(statuses == [503, 503, 429])
        }
    }

    /// A JWT is checked locally, so a client address over its failed checks (a stranger's junk behind the same
    /// carrier NAT) still gets its user's valid token checked and served; the junk stays refused, 429.
    @Test func aValidJWTPassesFromAnAddressOverItsFailures() async throws {
        try await withRelayAndMock(configure: {
            RelayHarness.withUserAuth(&$0)
            $0.http.credentialFailures.perAddressBurst = 2
            $0.http.credentialFailures.perAddressPerMinute = 1
        }) { relay in
            func junk(_ index: Int) async throws -> Int {
                try await relay.call(
                    "GET",
                    "/v1/users/alice/devices",
                    key: "junk-\(index)",
                    headers: ["X-PushRelay-App": relay.app.id]
                ).status
            }
            #expect(try await [junk(0), junk(1), junk(2)] == [401, 401, 429])
            let valid = try await relay.call("GET", "/v1/users/alice/devices", user: "alice")
            #expect(valid.status == 200, "\(valid.text)")
            #expect(try await junk(3) == 429)
        }
    }
}
