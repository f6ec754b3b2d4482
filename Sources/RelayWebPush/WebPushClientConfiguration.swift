import Foundation
import RelayCore
import WebPushCore

/// How one app's ``WebPushClient`` sends: its VAPID key and subject, the payload shape, the message
/// lifetime, the mock push service it trusts (if any), and its limits.
public struct WebPushClientConfiguration: Sendable {
    /// How refusals (403) of one origin's subscriptions pause sends to that origin.
    public struct OriginPause: Sendable, Equatable {
        /// Distinct subscriptions of an origin that must refuse within ``window`` to pause it. Default 3.
        public var refusals: Int = 3
        /// How long a refusal counts. Default 10 minutes.
        public var window: Duration = .seconds(600)
        /// How long the origin stays paused unless a probe is accepted. Default 10 minutes.
        public var duration: Duration = .seconds(600)
        /// While paused, one send goes to the origin this often; its acceptance ends the pause. Default 30 s.
        public var probeInterval: Duration = .seconds(30)

        public init() {}
    }

    /// What origins that have not shown they are a working push service may hold (``OriginGuard``).
    public struct Origins: Sendable, Equatable {
        /// How long an accepted push proves its origin. Default 1 hour.
        public var provenFor: Duration = .seconds(3600)
        /// Requests in flight to one unproven origin at most. Default 4.
        public var unprovenPerOrigin: Int = 4
        /// Requests in flight to all unproven origins together at most. Default 16.
        public var unprovenTotal: Int = 16

        public init() {}
    }

    /// The app's VAPID key, whose public key its pages subscribed with.
    public var vapidKey: VAPIDKey
    /// The VAPID `sub` claim, `mailto:` or `https:` (``WebPushCore/VAPIDSubject``).
    public var subject: String
    /// Send Declarative Web Push (``WebPushCore/WebPushPayload``) with `navigate` from ``openURL``.
    public var declarative: Bool = false
    /// The page a click opens, with `{roomId}` and `{messageId}` placeholders; required with
    /// ``declarative``.
    public var openURL: String?
    /// The `TTL` header's most SECONDS (the app's `ttlSeconds`); a notification that expires sooner gets
    /// what it has left. Default 86,400 (a day).
    public var ttlSeconds: Int = 86_400
    /// The mock push service the app's test browsers subscribe at: endpoints of its base URL's origin may be
    /// plain http and loopback, and its `caFile` verifies it. Every other endpoint is https to a host name
    /// that resolves to a public address.
    public var mock: Configuration.MockEndpoint?
    /// Longest a TCP+TLS connect may take. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// Longest one request may take, queueing included. Default 30 s.
    public var requestTimeout: Duration = .seconds(30)
    /// Most requests handed to libcurl at once; the rest wait in the client's queue. Default 1000.
    public var maxInFlight: Int = 1000
    /// Most requests to one proven origin at once (``Origins`` bounds the others): a send beyond it is held
    /// and tried later, so one push service never holds all of ``maxInFlight``. Default 100.
    public var maxInFlightPerOrigin: Int = 100
    /// Most connections to one host. Default 2.
    public var maxConnectionsPerHost: Int = 2
    /// How long a send waits for a slot of a proven origin at its bound before it is held and tried again:
    /// long enough for a working service to free one, short enough that an origin that stops answering
    /// holds the app's waiting sends only that long. Default 1 s.
    public var slotWait: Duration = .seconds(1)
    /// The longest `Retry-After` honoured. Default 10 minutes.
    public var maxRetryAfter: Duration = .seconds(600)
    /// When refusals pause an origin.
    public var originPause = OriginPause()
    /// What unproven origins may hold.
    public var origins = Origins()
    /// The most bytes of an answer's body read; a longer answer is aborted. Default 4,096.
    public var maxResponseBytes: Int = 4096
    /// SECONDS a VAPID token is signed for (at most 24 hours, RFC 8292 §2). Default 12 hours.
    public var tokenLifetime: Int = VAPIDKey.defaultLifetime
    /// SECONDS before its `exp` a cached VAPID token is replaced; less than ``tokenLifetime``. Default 1 hour.
    public var tokenRenewal: Int = 3600
    /// Clocks for token expiry and origin pauses (`now`); transport deadlines use the real monotonic clock,
    /// as libcurl does.
    public var timeSource: any TimeSource = SystemTimeSource()
    /// Where the client logs. Default: disabled.
    public var logger: Logger = .disabled("webpush")

    /// A configuration signing with `vapidKey`.
    public init(vapidKey: VAPIDKey, subject: String) {
        self.vapidKey = vapidKey
        self.subject = subject
    }

    /// A configuration signing with the key in `vapidKeyPEM` (a PEM file's contents).
    /// - Throws: ``WebPushCore/WebPushError`` `.invalidKey` when the text is not a P-256 private key.
    public init(vapidKeyPEM: String, subject: String) throws(WebPushError) {
        self.init(vapidKey: try VAPIDKey(privateKeyPEM: vapidKeyPEM), subject: subject)
    }

    /// The origin of ``mock``'s base URL (`http://127.0.0.1:8443`); nil without a mock or when its URL is
    /// not one.
    public var mockOrigin: String? {
        mock.flatMap { try? PushEndpoint(validating: $0.baseURL, allowingHTTP: true).origin }
    }

    /// Every problem with the values, empty when they are usable; zero or negative limits are refused.
    public func problems() -> [String] {
        var problems: [String] = []
        do { _ = try VAPIDSubject(validating: subject) } catch { problems.append("subject: \(error.message)") }
        if declarative, openURL == nil { problems.append("openURL is required with declarative") }
        if let mock, mockOrigin == nil { problems.append("mock base URL '\(mock.baseURL)' is not an http(s) URL") }
        if ttlSeconds < 0 { problems.append("ttlSeconds must not be negative") }
        if connectTimeout <= .zero { problems.append("connectTimeout must be positive") }
        if requestTimeout <= .zero { problems.append("requestTimeout must be positive") }
        if maxInFlight < 1 { problems.append("maxInFlight must be at least 1") }
        if maxInFlightPerOrigin < 1 { problems.append("maxInFlightPerOrigin must be at least 1") }
        if maxConnectionsPerHost < 1 { problems.append("maxConnectionsPerHost must be at least 1") }
        if maxRetryAfter < .zero { problems.append("maxRetryAfter must not be negative") }
        if originPause.refusals < 1 { problems.append("originPause.refusals must be at least 1") }
        if originPause.window <= .zero { problems.append("originPause.window must be positive") }
        if originPause.duration <= .zero { problems.append("originPause.duration must be positive") }
        if originPause.probeInterval <= .zero { problems.append("originPause.probeInterval must be positive") }
        if slotWait < .zero { problems.append("slotWait must not be negative") }
        if origins.provenFor <= .zero { problems.append("origins.provenFor must be positive") }
        if origins.unprovenPerOrigin < 1 { problems.append("origins.unprovenPerOrigin must be at least 1") }
        if origins.unprovenTotal < 1 { problems.append("origins.unprovenTotal must be at least 1") }
        if maxResponseBytes < 1 { problems.append("maxResponseBytes must be at least 1") }
        if !(1...VAPIDKey.maxLifetime).contains(tokenLifetime) {
            problems.append("tokenLifetime must be 1 to \(VAPIDKey.maxLifetime) seconds")
        }
        if tokenRenewal < 0 || tokenRenewal >= tokenLifetime {
            problems.append("tokenRenewal must be at least 0 and less than tokenLifetime")
        }
        return problems
    }
}
