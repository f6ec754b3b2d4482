import Foundation
import RelayCore
import RelayCurl
import WebPushCore

/// Sends one app's push messages to its subscribers' push services (RFC 8030) over HTTP/2 (or HTTP/1.1
/// where a service offers no h2), each encrypted for its subscription (RFC 8291) and authorized by the
/// app's VAPID key (RFC 8292).
///
/// Endpoints are URLs users give, so every request is guarded against server-side request forgery: only
/// https to host names; at connect time each resolved address must be public (libcurl's open-socket
/// callback, ``RelayCore/IPAddress/isPublic``); no redirects, no proxy, answers read up to
/// ``WebPushClientConfiguration/maxResponseBytes``. Only the app's configured mock push service may be plain
/// http, an IP address, or loopback, and only it is verified with the mock's CA file. Each origin has a
/// bound on its requests in flight and is paused after refusals (``OriginGuard``).
///
/// One libcurl multi handle driven by one dedicated thread (``WebPushClientConfiguration/maxInFlight``
/// requests at once, the rest queued FIFO). Logs name an endpoint by its origin and last characters only
/// (``WebPushCore/PushEndpoint/logDescription``), never its keys or the VAPID token. Call ``shutdown()``
/// when done.
public final class WebPushClient: Sendable {
    public let configuration: WebPushClientConfiguration
    private let driver: CurlMultiDriver
    private let tokens: VAPIDTokens
    private let origins: OriginGuard
    private let mockOrigin: String?

    /// Checks the configuration and starts the driver thread. Connects lazily.
    /// - Throws: ``WebPushConfigurationError`` for unusable values or a libcurl without HTTP/2;
    ///   `TransportError` `.other` when libcurl cannot start.
    public init(configuration: WebPushClientConfiguration) throws {
        var problems = configuration.problems()
        if !LibcurlInfo.current.hasHTTP2 { problems.append("the linked libcurl has no HTTP/2 support") }
        guard problems.isEmpty else { throw WebPushConfigurationError(problems: problems) }
        let mockOrigin = configuration.mockOrigin
        let options = CurlCommonOptions(
            connectTimeoutMs: configuration.connectTimeout.curlMilliseconds,
            upkeepIntervalMs: 60_000,
            caFile: configuration.mock?.caFile,
            untrustedURLs: .init(
                protocols: mockOrigin?.hasPrefix("http:") == true ? "http,https" : "https",
                maxResponseBytes: configuration.maxResponseBytes
            )
        )
        driver = try CurlMultiDriver(
            options: options,
            maxInFlight: configuration.maxInFlight,
            maxConnections: configuration.maxConnectionsPerHost,
            maxTotalConnections: configuration.maxConnectionsPerHost * 32,
            idlePoll: .seconds(1),
            threadName: "webpush-curl",
            responseHeaders: ["location", "retry-after"],
            logger: configuration.logger
        )
        tokens = VAPIDTokens(
            key: configuration.vapidKey,
            subject: try VAPIDSubject(validating: configuration.subject),
            lifetime: configuration.tokenLifetime,
            renewal: configuration.tokenRenewal,
            time: configuration.timeSource
        )
        origins = OriginGuard(
            maxInFlight: configuration.maxInFlightPerOrigin,
            limits: configuration.origins,
            pause: configuration.originPause
        )
        self.mockOrigin = mockOrigin
        self.configuration = configuration
        driver.start()
    }

    deinit { driver.stopAccepting() }

    /// Encrypts `message` for its subscription and posts it; returns the push service's answer, whatever
    /// its status (``WebPushCore/WebPushDecision`` tells what it means). A 403 counts toward pausing the
    /// endpoint's origin.
    /// - Throws: ``WebPushRefusal`` when the endpoint may not be posted to, or its origin is paused or busy
    ///   (nothing sent); ``WebPushCore/WebPushError`` when encryption or signing fails; `TransportError`
    ///   when no answer came (`.addressRefused` when the host resolves to no public address);
    ///   `CancellationError` when the task is cancelled.
    public func send(_ message: WebPushMessage) async throws -> WebPushResponse {
        let endpoint = message.subscription.endpoint
        let trusted = endpoint.origin == mockOrigin
        if !trusted { try Self.checkPublic(endpoint) }
        var admission = origins.admit(endpoint.origin, now: configuration.timeSource.now, trusted: trusted)
        // A proven origin at its bound is waited for, a while (``WebPushClientConfiguration/slotWait``).
        let waitUntil = ContinuousClock.now + configuration.slotWait
        while case .busy(proven: true) = admission, ContinuousClock.now < waitUntil {
            try Task.checkCancellation()
            guard await origins.waitForSlot(endpoint.origin, upTo: waitUntil - ContinuousClock.now) else { break }
            admission = origins.admit(endpoint.origin, now: configuration.timeSource.now, trusted: trusted)
        }
        let ticket: OriginGuard.Ticket
        switch admission {
        case .paused(let until):
            throw WebPushRefusal(.originPaused, "\(endpoint.origin) is paused after refusals", until: until)
        case .busy:
            throw WebPushRefusal(.originBusy, "\(endpoint.origin) has its most requests in flight")
        case .send(let taken):
            ticket = taken
        }
        var accepted = false
        defer { origins.finish(ticket, accepted: accepted, now: configuration.timeSource.now) }
        let body = try MessageEncryption.encrypt(message.plaintext, to: message.subscription.keys)
        let authorization = try tokens.authorization(for: endpoint.origin)
        var headers = [
            "content-encoding: aes128gcm", "content-type: application/octet-stream",
            "ttl: \(message.ttlSeconds)", "urgency: high", "authorization: " + authorization.headerValue,
            "accept:", "expect:",
        ]
        if let topic = message.topic { headers.append("topic: \(topic.value)") }
        let request = CurlRequest(
            url: endpoint.text,
            headers: headers,
            body: body,
            deadline: .now + configuration.requestTimeout,
            tokenSuffix: endpoint.logDescription,
            trustedHost: trusted
        )
        let answer = try await driver.send(request)
        let now = configuration.timeSource.now
        if answer.status == 403,
            let until = origins.refused(endpoint.origin, subscription: endpoint.deviceToken, now: now)
        {
            configuration.logger.warning(
                "push service refused the VAPID credentials of several subscriptions; origin paused",
                ["push.origin": endpoint.origin, "pause.until": Timestamp.rfc3339(until)]
            )
        }
        let response = WebPushResponse(
            status: answer.status,
            location: answer.headers["location"],
            retryAfterHeader: answer.headers["retry-after"],
            now: now
        )
        accepted = response.isAccepted
        return response
    }

    /// How many VAPID tokens the client signed so far (one per origin while cached).
    public var vapidTokensSigned: Int { tokens.minted }

    /// Stops taking requests, lets queued and in-flight ones finish or fail, then ends the driver thread.
    /// Safe to call more than once.
    public func shutdown() async { await driver.shutdown() }

    /// Refuses an endpoint that is not https to a host name: plain http and IP addresses only reach the
    /// app's mock. Whether the name resolves to a public address is checked at connect time.
    private static func checkPublic(_ endpoint: PushEndpoint) throws(WebPushRefusal) {
        guard endpoint.url.scheme?.lowercased() == "https" else {
            throw WebPushRefusal(.endpointNotAllowed, "\(endpoint.logDescription) is not https")
        }
        let host = endpoint.url.host ?? ""
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if IPAddress(bare) != nil {
            throw WebPushRefusal(.endpointNotAllowed, "\(endpoint.logDescription) names an IP address, not a host")
        }
    }
}
