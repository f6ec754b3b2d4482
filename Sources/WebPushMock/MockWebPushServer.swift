import Foundation
import MockHTTP2
import WebPushCore

/// A mock Web Push service (RFC 8030 push resource, RFC 8291 messages, RFC 8292 VAPID) on HTTP/2 (libnghttp2;
/// TLS with ALPN `h2`, or cleartext h2c): it makes subscriptions whose private keys it keeps, checks each push
/// as a push service does and opens it (see ``PushCheck`` for the checks and statuses), answers per its
/// ``MockWebPushScript``, and records what it answered.
///
/// Routes: `POST /push/<id>` (201 Created with `Location: <base>/message/<uuid>`, or an error with a JSON body
/// like Mozilla autopush's `{"code", "errno", "error", "message"}`; 404 for an unknown id); anything else
/// 404, unrecorded.
///
/// ```swift
/// let server = MockWebPushServer(configuration: .init())
/// try server.start()
/// defer { server.stop() }
/// let subscription = try server.newSubscription()  // give it to the relay as a browser would
/// let pushes = try await server.waitForRequests(count: 1)
/// ```
public final class MockWebPushServer: MockServer<MockWebPushScript, RecordedPush>, @unchecked Sendable {
    private let core: MockWebPushCore

    /// Prepares a server; nothing listens until ``MockServer/start()``.
    public init(configuration: MockWebPushConfiguration) {
        let core = MockWebPushCore(configuration: configuration)
        self.core = core
        super.init(configuration: configuration) { MockWebPushService(core: core) }
    }

    /// The configuration the server was made with.
    public var configuration: MockWebPushConfiguration { core.configuration }

    /// Where clients reach this server once started: `http://127.0.0.1:<port>` (h2c) or
    /// `https://[::1]:<port>` (TLS), from the configured host and the bound port.
    public var baseURL: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return (configuration.tls == nil ? "http" : "https") + "://\(host):\(port)"
    }

    /// Makes a subscription as a browser's `pushManager.subscribe` would get one from this push service: the
    /// endpoint `<baseURL>/push/<random id>`, a fresh P-256 key pair and 16-byte auth secret, of which the
    /// mock keeps the private half (and writes it to the subscriptions directory, when configured).
    /// - Parameters:
    ///   - baseURL: the URL the endpoint starts with; nil is ``baseURL`` (start the server first).
    ///   - applicationServerKey: the VAPID public key (base64url, as a page passes it to `subscribe`) the
    ///     subscription is restricted to: a push signed by another key is answered 403 (RFC 8292 §4); nil
    ///     takes any signer.
    /// - Returns: the subscription as `PushSubscription.toJSON()` gives it (`expirationTime` null).
    /// - Throws: ``MockWebPushError`` `.invalidConfiguration` when `baseURL` is not an http(s) URL, the key is
    ///   not a P-256 point, or the subscription file cannot be written.
    public func newSubscription(
        baseURL: String? = nil,
        applicationServerKey: String? = nil
    ) throws(MockWebPushError) -> WebPushSubscription {
        try core.subscriptions.make(baseURL: baseURL ?? self.baseURL, applicationServerKey: applicationServerKey)
            .subscription
    }

    /// Makes `count` subscriptions as ``newSubscription(baseURL:applicationServerKey:)`` does (distinct
    /// endpoints, each kept as its own file when there is a subscriptions directory), for load tests: with
    /// only `keyPairs` key pairs, taken in turn, since making a P-256 key pair costs more than the rest.
    /// - Throws: ``MockWebPushError`` `.invalidConfiguration` when `keyPairs` is not positive, `baseURL` is
    ///   not an http(s) URL, or a key pair or file cannot be made.
    public func newSubscriptions(
        count: Int,
        keyPairs: Int,
        baseURL: String? = nil
    ) throws(MockWebPushError) -> [WebPushSubscription] {
        guard keyPairs > 0 else { throw MockWebPushError(.invalidConfiguration, "keyPairs must be positive") }
        var pairs: [SubscriptionKeyPair] = []
        do {
            for _ in 0..<min(keyPairs, count) { pairs.append(try SubscriptionKeyPair.generate()) }
        } catch {
            throw MockWebPushError(.invalidConfiguration, "cannot make a key pair: \(error.message)")
        }
        let base = baseURL ?? self.baseURL
        return try (0..<count).map { (index) throws(MockWebPushError) in
            try core.subscriptions.make(baseURL: base, applicationServerKey: nil, keyPair: pairs[index % pairs.count])
                .subscription
        }
    }

    /// The endpoint id of a subscription endpoint this mock makes (the segment after `/push/`), the key of
    /// the script's rules and of ``RecordedPush/endpointId``; nil for an endpoint of another form.
    public static func endpointId(of endpoint: String) -> String? {
        guard let range = endpoint.range(of: MockWebPushService.pushPrefix, options: .backwards) else { return nil }
        let id = endpoint[range.upperBound...]
        return MockSubscription.isWellFormed(id: id) ? String(id) : nil
    }
}
