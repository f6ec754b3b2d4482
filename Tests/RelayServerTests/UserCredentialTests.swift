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
}
