import MockHTTP2

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
public final class MockAPNsServer: MockServer<MockScript, RecordedRequest>, @unchecked Sendable {
    /// The configuration the server was made with.
    public let configuration: MockAPNsConfiguration

    /// Prepares a server; nothing listens until ``MockServer/start()``.
    public init(configuration: MockAPNsConfiguration) {
        self.configuration = configuration
        super.init(configuration: configuration) { MockAPNsService(configuration: configuration) }
    }
}
