import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import Testing

/// User credentials through the whole relay: an app's `userAuth` turns `Authorization: Bearer <token>` with
/// `X-PushRelay-App` into the caller's user id, or into the refusal's status and code.
@Suite struct UserCredentialTests {
    /// A P-256 key standing in for the app's identity provider, its public half in a PEM file.
    static let issuerKey = try! ES256Key.generate()
    static let pemFile: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("idp-\(UUID().uuidString).pem").path
        try! Data(issuerKey.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }()

    /// An ES256 JWT for `user` expiring `expiresIn` seconds from now.
    static func jwt(_ user: String, expiresIn: Int = 600) throws -> String {
        func part(_ object: [String: Any]) throws -> String {
            try JSONSerialization.data(withJSONObject: object, options: .sortedKeys).base64URLEncodedString()
        }
        let now = Int(Date().timeIntervalSince1970)
        let input = try part(["alg": "ES256", "typ": "JWT"]) + "." + part(["sub": user, "exp": now + expiresIn])
        return input + "." + (try issuerKey.sign(Data(input.utf8))).base64URLEncodedString()
    }

    @Test func aJWTMakesTheCallerItsUser() async throws {
        try await withRelayAndMock(configure: {
            $0.apps[0].userAuth = .init(jwt: .init(publicKeyFiles: [Self.pemFile]))
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
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let probe = HTTPServer(configuration: configuration, handler: { _ in .noContent }, logger: .disabled())
        try probe.start()
        let url = "http://127.0.0.1:\(probe.port)/auth"
        await probe.shutdown()
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
