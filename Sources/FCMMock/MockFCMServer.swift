import Foundation
import MockHTTP2
import RelayCore

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
public final class MockFCMServer: Sendable {
    private let core: MockFCMCore
    private let runner: ServerRunner

    /// Prepares a server; nothing listens until ``start()``.
    public init(configuration: MockFCMConfiguration) {
        core = MockFCMCore(configuration: configuration)
        runner = ServerRunner(
            configuration: .init(
                host: configuration.host,
                port: configuration.port,
                tls: configuration.tls,
                threadName: "fcm-mock",
                bodyLimit: MessageValidator.bodyLimit
            )
        )
    }

    deinit { stop() }

    /// The configuration the server was made with.
    public var configuration: MockFCMConfiguration { core.configuration }

    /// Binds, listens and starts the server thread. Does nothing when already started.
    /// - Throws: ``MockFCMError`` `.invalidConfiguration`, `.listen` (address in use, bad host), `.tls`
    ///   (certificate or key not loadable), `.recordFile`.
    public func start() throws(MockFCMError) {
        guard core.configuration.maxConcurrentStreams > 0 else {
            throw MockFCMError(.invalidConfiguration, "maxConcurrentStreams must be positive")
        }
        guard core.configuration.accessTokenLifetime > .zero else {
            throw MockFCMError(.invalidConfiguration, "accessTokenLifetime must be positive")
        }
        try runner.start(recordFile: core.configuration.recordFile) { [core] connection, recorder in
            MockFCMConnection(connection: connection, core: core, recorder: recorder)
        }
    }

    /// Closes the listening socket and every connection and joins the thread. Safe to call more than once.
    public func stop() { runner.stop() }

    /// The TCP port the server listens on (the ephemeral one when configured with port 0); 0 before ``start()``.
    public var port: Int { runner.port }

    /// The script in force; setting it (from any thread) replaces it and resets its counters.
    public var script: MockFCMScript {
        get { core.script }
        set { core.script = newValue }
    }

    /// Changes the script in place, atomically; counters restart, as for setting ``script``.
    public func updateScript(_ body: (inout MockFCMScript) -> Void) { core.updateScript(body) }

    /// Answered messages kept in memory, oldest first (empty when `recordInMemory` is off).
    public var requests: [RecordedMessage] { core.log.records }

    /// How many `messages:send` requests were answered since start (or ``clearRequests()``), kept in memory
    /// or not. Never-answered requests and token requests are not counted.
    public var answeredCount: Int { core.log.total }

    /// Forgets the recorded messages and resets ``answeredCount``.
    public func clearRequests() { core.log.clear() }

    /// Suspends until at least `count` messages were answered (see ``answeredCount``), then returns
    /// ``requests``.
    /// - Throws: ``MockFCMError`` `.timeout` when `timeout` passes first.
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) async throws -> [RecordedMessage] {
        try await core.log.wait(count: count, timeout: timeout)
    }

    /// How many access tokens the token endpoint issued since start.
    public var accessTokensIssued: Int { core.tokensIssued }

    /// Forgets every access token issued: each is answered 401 UNAUTHENTICATED from now on, as after a
    /// revocation.
    public func revokeAccessTokens() { core.revokeTokens() }

    /// How many TCP connections were accepted since start.
    public var acceptedConnections: Int { core.acceptedConnections }
}
