import Foundation
import MockHTTP2
import RelayCore

/// A mock of Apple's APNs: an HTTP/2 server (libnghttp2; TLS with ALPN `h2` via OpenSSL, or cleartext h2c)
/// that validates `POST /3/device/<token>` requests in Apple's order, answers with Apple's statuses and
/// `{"reason":"..."}` bodies, follows a ``MockScript`` and records what it answered.
///
/// One thread runs a `poll(2)` loop with non-blocking sockets for every connection. Validation rules are in
/// ``RequestValidator`` and ``ProviderTokenCheck`` (Apple, "Sending notification requests to APNs",
/// "Handling notification responses from APNs", "Establishing a token-based connection to APNs").
/// Streams: with token auth a connection advertises SETTINGS_MAX_CONCURRENT_STREAMS = 1 until a request with a
/// valid provider token passed validation, then ``MockAPNsConfiguration/maxConcurrentStreams``. A client
/// that opens more streams than advertised gets RST_STREAM REFUSED_STREAM for the excess (nghttp2 enforces
/// the limit, RFC 9113 §5.1.2), as from Apple.
///
/// Validation order (first failure answers): 405 MethodNotAllowed, 404 BadPath, 400 MissingDeviceToken,
/// 400 BadDeviceToken (not even-length hex of 8...256 bytes), 400 DuplicateHeaders, then the provider token
/// (403 MissingProviderToken / InvalidProviderToken / ExpiredProviderToken / Forbidden, 429
/// TooManyProviderTokenUpdates), 400 BadMessageId, BadExpirationDate, BadPriority, InvalidPushType,
/// BadPriority (background at 10, the default), MissingTopic, BadTopic, TopicDisallowed, BadCollapseId,
/// PayloadEmpty, 413 PayloadTooLarge (4096 bytes, 5120 for voip), 400 PayloadEmpty (body not a JSON
/// object), InvalidPushType (background with alert, sound or badge), BadPriority (10 with content-available
/// only). Only then does the script's device rule (if any) pick the answer.
///
/// Answers: 200 with `apns-id` (the request's, else a new lowercase UUID) and, for `.sandbox`,
/// `apns-unique-id`, no body; errors with `apns-id`, `content-type: application/json` and
/// `{"reason":"..."}`, plus `"timestamp"` (MILLISECONDS since 1970) on 410.
/// A client certificate that does not verify against `clientCAPath` fails the TLS handshake.
/// Connections are never closed for idleness.
///
/// ```swift
/// let server = MockAPNsServer(configuration: .init(authentication: .disabled))
/// try server.start()
/// defer { server.stop() }
/// // POST h2c://127.0.0.1:\(server.port)/3/device/<hex>
/// let recorded = try await server.waitForRequests(count: 1)
/// ```
public final class MockAPNsServer: Sendable {
    private let core: MockCore
    private let runner: ServerRunner

    /// Prepares a server; nothing listens until ``start()``.
    public init(configuration: MockAPNsConfiguration) {
        core = MockCore(configuration: configuration)
        runner = ServerRunner(
            configuration: .init(
                host: configuration.host,
                port: configuration.port,
                tls: configuration.tls,
                threadName: "apns-mock",
                bodyLimit: RequestValidator.maxBufferedBody
            )
        )
    }

    deinit { stop() }

    /// The configuration the server was made with.
    public var configuration: MockAPNsConfiguration { core.configuration }

    /// Binds, listens and starts the server thread. Does nothing when already started.
    /// - Throws: ``MockAPNsError`` `.invalidConfiguration`, `.listen` (address in use, bad host), `.tls`
    ///   (certificate, key or CA not loadable), `.recordFile`.
    public func start() throws(MockAPNsError) {
        guard core.configuration.maxConcurrentStreams > 0 else {
            throw MockAPNsError(.invalidConfiguration, "maxConcurrentStreams must be positive")
        }
        try runner.start(recordFile: core.configuration.recordFile) { [core] connection, recorder in
            MockConnection(connection: connection, core: core, recorder: recorder)
        }
    }

    /// Closes the listening socket and every connection and joins the thread. Safe to call more than once.
    public func stop() { runner.stop() }

    /// The TCP port the server listens on (the ephemeral one when configured with port 0); 0 before ``start()``.
    public var port: Int { runner.port }

    /// The script in force; setting it (from any thread) replaces it and resets its counters. Open
    /// connections take their `"all"` and index connection rules from the new script at once (see
    /// ``MockScript``).
    public var script: MockScript {
        get { core.script }
        set {
            core.script = newValue
            runner.wake()
        }
    }

    /// Changes the script in place, atomically; counters restart, as for setting ``script``.
    public func updateScript(_ body: (inout MockScript) -> Void) {
        core.updateScript(body)
        runner.wake()
    }

    /// Answered requests kept in memory, oldest first (empty when `recordInMemory` is off).
    public var requests: [RecordedRequest] { core.log.records }

    /// How many requests were answered since start (or ``clearRequests()``), whether kept in memory or not.
    /// Refused (RST_STREAM), never-answered and dropped requests are not counted.
    public var answeredCount: Int { core.log.total }

    /// How many TCP connections were accepted since start (connection ids run 1...this).
    public var acceptedConnections: Int { core.acceptedConnections }

    /// Forgets the recorded requests and resets ``answeredCount``.
    public func clearRequests() { core.log.clear() }

    /// Suspends until at least `count` requests were answered (see ``answeredCount``), then returns
    /// ``requests``.
    /// - Throws: ``MockAPNsError`` `.timeout` when `timeout` passes first.
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) async throws -> [RecordedRequest] {
        try await core.log.wait(count: count, timeout: timeout)
    }
}
