import APNsCore
import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import Synchronization

/// Sends notifications to APNs over HTTP/2, multiplexed on ``APNsClientConfiguration/connections``
/// connections, all carrying the one provider token.
///
/// Each connection is one libcurl multi handle driven by a dedicated thread (never Swift's cooperative
/// pool); callers are suspended on continuations. ``APNsConnectionPool`` spreads requests over the
/// connections: at most ``APNsClientConfiguration/maxInFlight`` on one connection, a cold connection (no
/// answer yet, or after a connection failure or 60 s idle) one request at a time, since APNs allows one
/// stream before a provider token proved itself; libcurl keeps each connection within the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS (Apple, "Sending notification requests to APNs": never assume a count).
///
/// Call ``shutdown()`` when done; dropping the client without it also stops the threads once in-flight
/// requests have finished.
public final class APNsClient: Sendable {
    public let configuration: APNsClientConfiguration
    /// The provider token every request carries (token auth); nil with certificate auth.
    public let providerToken: ProviderToken?
    private let pool: APNsConnectionPool
    /// Every request's URL up to the device token: the endpoint's base URL and `/3/device/`.
    private let deviceURLPrefix: String
    /// The last payload found to be a JSON object. A fan-out sends the same bytes to every device: they
    /// are compared (a memcmp) instead of parsed again for each.
    private let lastValidPayload = Mutex(Data())
    /// The header lines a fan-out's pushes share (``SharedHeaders``), made into libcurl's list once.
    private let sharedHeaders = CurlHeaderBlockCache<SharedHeaders>()

    /// What the shared header lines are made of: all but the lines of one push (`apns-id`, `apns-expiration`,
    /// `apns-collapse-id`).
    private struct SharedHeaders: Equatable, Sendable {
        /// The provider token (a JWT), compared as it is: ``ProviderToken/authorization()`` would build the
        /// header's value anew for each push.
        var providerToken: String?
        var pushType: PushType
        var topic: String
        var priority: Priority
    }

    /// Checks the configuration, loads the signing key, and starts the driver threads. Connects lazily.
    /// - Throws: ``APNsConfigurationError`` for unusable values or a libcurl without HTTP/2; `CryptoError`
    ///   when the token key cannot be read; ``TransportError`` `.other` when libcurl cannot start.
    public init(configuration: APNsClientConfiguration) throws {
        var problems = configuration.problems()
        if !LibcurlInfo.current.hasHTTP2 { problems.append("the linked libcurl has no HTTP/2 support") }
        var certificate: CurlCommonOptions.Certificate?
        switch configuration.authentication {
        case .token(let key, let keyId, let teamId):
            guard problems.isEmpty else { throw APNsConfigurationError(problems: problems) }
            providerToken = try ProviderToken(
                keyPEMOrPath: key,
                keyId: keyId,
                teamId: teamId,
                refreshAge: configuration.tokenRefreshAge,
                timeSource: configuration.timeSource
            )
        case .providerToken(let token):
            providerToken = token
        case .certificate(let path, let keyPath, let password):
            providerToken = nil
            let type = ClientCertificate.isPKCS12(path) ? "P12" : "PEM"
            certificate = .init(path: path, type: type, keyPath: keyPath, password: password)
            if !FileManager.default.isReadableFile(atPath: path) {
                problems.append("certificate file \(path) is not readable")
            }
        }
        guard problems.isEmpty else { throw APNsConfigurationError(problems: problems) }
        var caFile: String?
        if case .custom(_, let file) = configuration.endpoint { caFile = file }
        let options = CurlCommonOptions(
            connectTimeoutMs: configuration.connectTimeout.curlMilliseconds,
            upkeepIntervalMs: configuration.pingInterval?.curlMilliseconds,
            caFile: caFile,
            certificate: certificate
        )
        self.configuration = configuration
        deviceURLPrefix = configuration.endpoint.baseURL + APNsLimits.devicePathPrefix
        pool = try APNsConnectionPool(
            count: configuration.connections,
            perConnection: configuration.maxInFlight,
            // 403 (provider token problems) leaves APNs at one stream; any other answer opens the gate.
            holding: [403],
            options: options,
            idlePoll: min(.seconds(1), configuration.pingInterval ?? .seconds(1)),
            threadName: "apns-curl",
            responseHeaders: ["apns-id", "apns-unique-id"],
            logger: configuration.logger
        )
    }

    /// Requests in flight on the connections, and requests waiting for room (tests).
    package var poolCounts: (inFlight: Int, waiting: Int) { pool.counts }

    /// The OS thread ids (Linux tids) of the connections' driver threads still running.
    package var runningThreadIds: [Int32] { pool.runningThreadIds }

    /// Sends one notification and returns APNs's answer, accepted (200) or not (4xx/5xx with its reason).
    ///
    /// Checks the notification locally first, so a request APNs would refuse with 400/413 never leaves.
    /// Returns or throws within ``APNsClientConfiguration/requestTimeout``. A stream the server refused
    /// without processing it (REFUSED_STREAM, GOAWAY) is resent once.
    /// - Throws: `NotificationError` (local refusal, nothing sent); `CancellationError` when the task is
    ///   cancelled (the transfer is dropped); ``TransportError`` when no answer came; `CryptoError` when
    ///   the provider token cannot be signed.
    public func send(_ notification: APNsNotification) async throws -> APNsResponse {
        let request = try await request(for: notification)
        return Self.answer(try await pool.send(request))
    }

    /// Sends `notification` as ``send(_:)`` does and calls `completion` with APNs's answer or the error
    /// ``send(_:)`` would throw, on a connection's driver thread when the answer comes, so no task waits
    /// for it. Only while a provider token shared through the store is being renewed does a task wait
    /// for the token first.
    public func submit(
        _ notification: APNsNotification,
        completion: @escaping @Sendable (Result<APNsResponse, any Error>) -> Void
    ) {
        let request: CurlRequest
        do {
            var token: String?
            if let providerToken {
                guard let current = try providerToken.currentWithoutWaiting() else {
                    return Completions.inTask(completion) { try await self.send(notification) }
                }
                token = current
            }
            request = try self.request(for: notification, providerToken: token)
        } catch {
            return completion(.failure(error))
        }
        pool.submit(request) { completion($0.map(Self.answer)) }
    }

    /// APNs's answer as the driver read it.
    private static func answer(_ response: CurlResponse) -> APNsResponse {
        APNsResponse(
            status: response.status,
            apnsId: response.headers["apns-id"],
            apnsUniqueId: response.headers["apns-unique-id"],
            body: response.body
        )
    }

    /// Stops taking requests (later sends throw ``TransportError/Code/shutdown``), lets queued and
    /// in-flight ones finish or fail (each within its deadline), then ends every driver thread and frees
    /// libcurl's handles. Safe to call more than once.
    public func shutdown() async { await pool.shutdown() }

    /// The headers and body of one request (Apple, "Sending notification requests to APNs"), as ``send(_:)``
    /// hands it to libcurl; `relay-bench` writes them out for the bare libcurl reference.
    package func request(for notification: APNsNotification) async throws -> CurlRequest {
        try request(for: notification, providerToken: try await providerToken?.current())
    }

    /// The request for `notification` carrying `providerToken` (nil with certificate auth).
    private func request(for notification: APNsNotification, providerToken: String?) throws -> CurlRequest {
        try notification.validateHeaders()
        if !lastValidPayload.withLock({ $0 == notification.payload }) {
            try APNsNotification.validatePayload(notification.payload)
            lastValidPayload.withLock { $0 = notification.payload }
        }
        try Self.checkHeaderValue(notification.topic, reason: .badTopic)
        if let collapseId = notification.collapseId { try Self.checkHeaderValue(collapseId, reason: .badCollapseId) }
        let key = SharedHeaders(
            providerToken: providerToken,
            pushType: notification.pushType,
            topic: notification.topic,
            priority: notification.priority
        )
        let shared = try sharedHeaders.block(for: key) {
            var lines = key.providerToken.map { ["authorization: " + ProviderToken.authorization($0)] } ?? []
            lines.append("apns-push-type: " + key.pushType.rawValue)
            lines.append("apns-topic: " + key.topic)
            lines.append("apns-priority: \(key.priority.rawValue)")
            lines.append("content-type: application/json")
            // Drop libcurl's defaults that APNs does not need.
            lines.append("accept:")
            lines.append("expect:")
            return lines
        }
        var headers: [String] = []
        headers.reserveCapacity(3)
        headers.append(notification.apnsIdLine)
        if let expiration = notification.expiration { headers.append("apns-expiration: \(expiration)") }
        if let collapseId = notification.collapseId { headers.append("apns-collapse-id: " + collapseId) }
        return CurlRequest(
            url: deviceURLPrefix + notification.deviceToken.hex,
            headers: headers,
            sharedHeaders: shared,
            body: notification.payload,
            deadline: .now + configuration.requestTimeout,
            tokenSuffix: notification.deviceToken.suffix
        )
    }

    /// Throws `reason` when a header's `value` holds a line break or NUL, which would end the header early.
    private static func checkHeaderValue(_ value: String, reason: APNsReason) throws {
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
            throw NotificationError(reason: reason, message: "header value contains a line break or NUL")
        }
    }
}
