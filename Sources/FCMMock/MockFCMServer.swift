import MockHTTP2

/// A mock of FCM HTTP v1 and Google's OAuth 2.0 token endpoint in one HTTP/2 server (libnghttp2; TLS with
/// ALPN `h2`, or cleartext h2c): it checks service-account assertions and issues access tokens, checks the
/// bearer and the message of each `messages:send`, answers per its ``MockFCMScript``, and records what it
/// answered.
///
/// Routes: `POST /token` (a service account's `token_uri` is `<base URL>/token`; see ``TokenEndpoint`` for
/// the checks and OAuth errors), `POST /v1/projects/{projectId}/messages:send` (401 UNAUTHENTICATED for a
/// missing, unknown or expired bearer; 403 PERMISSION_DENIED for another account's project; 400
/// INVALID_ARGUMENT for a malformed message, see ``MessageValidator``; then the script, else 200
/// `{"name": "projects/{projectId}/messages/..."}`), anything else 404 NOT_FOUND. Error bodies are Google's
/// JSON (Firebase, "FCM error codes").
///
/// ```swift
/// let account = try MockFCMAccount.makeServiceAccount(projectId: "chat-app", tokenURI: "http://127.0.0.1:\(port)/token")
/// let server = MockFCMServer(configuration: .init(port: port, accounts: [try MockFCMAccount(serviceAccount: account)]))
/// try server.start()
/// defer { server.stop() }
/// let recorded = try await server.waitForRequests(count: 1)
/// ```
public final class MockFCMServer: MockServer<MockFCMScript, RecordedMessage>, @unchecked Sendable {
    private let core: MockFCMCore

    /// Prepares a server; nothing listens until ``MockServer/start()``.
    public init(configuration: MockFCMConfiguration) {
        let core = MockFCMCore(configuration: configuration)
        self.core = core
        super.init(configuration: configuration) { MockFCMService(core: core) }
    }

    /// The configuration the server was made with.
    public var configuration: MockFCMConfiguration { core.configuration }

    /// How many access tokens the token endpoint issued since start.
    public var accessTokensIssued: Int { core.tokensIssued }

    /// Forgets every access token issued: each is answered 401 UNAUTHENTICATED from now on, as after a
    /// revocation.
    public func revokeAccessTokens() { core.revokeTokens() }
}
