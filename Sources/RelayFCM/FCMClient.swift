import FCMCore
import Foundation
import RelayCore
import RelayCrypto
import RelayCurl

/// Sends messages to FCM HTTP v1 over HTTP/2, multiplexed on one connection, authorized by one service
/// account's OAuth 2.0 access token.
///
/// One libcurl multi handle driven by one dedicated thread (``FCMClientConfiguration/maxInFlight`` requests
/// at once, the rest queued FIFO; libcurl keeps each connection within the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS). The same driver exchanges the account's signed assertion at its
/// `token_uri` for an access token (Google, "Using OAuth 2.0 for Server to Server Applications"), which every
/// send shares until shortly before it expires. A send refused with 401 UNAUTHENTICATED (the token expired
/// early or was revoked) renews the token and is sent once more.
///
/// Call ``shutdown()`` when done.
public final class FCMClient: Sendable {
    public let configuration: FCMClientConfiguration
    private let driver: CurlMultiDriver
    private let accessTokens: AccessTokens
    private let sendURL: String
    /// The header lines every send carries, made into libcurl's list once per access token.
    private let sharedHeaders = CurlHeaderBlockCache<String>()

    /// Checks the configuration, loads the service account's key, and starts the driver thread. Connects
    /// lazily: nothing is fetched until the first send.
    /// - Throws: ``FCMConfigurationError`` for unusable values or a libcurl without HTTP/2; `CryptoError`
    ///   when the account's private key is not an RSA key of 2048 bits or more; `TransportError` `.other`
    ///   when libcurl cannot start.
    public init(configuration: FCMClientConfiguration) throws {
        var problems = configuration.problems()
        if !LibcurlInfo.current.hasHTTP2 { problems.append("the linked libcurl has no HTTP/2 support") }
        guard problems.isEmpty else { throw FCMConfigurationError(problems: problems) }
        let key = try RS256Key(privateKeyPEM: configuration.serviceAccount.privateKey)
        let options = CurlCommonOptions(
            connectTimeoutMs: configuration.connectTimeout.curlMilliseconds,
            upkeepIntervalMs: configuration.pingInterval?.curlMilliseconds,
            caFile: configuration.endpoint.caFile
        )
        let driver = try CurlMultiDriver(
            options: options,
            maxInFlight: configuration.maxInFlight,
            maxConnections: configuration.maxConnections,
            maxTotalConnections: configuration.maxConnections + 1,
            idlePoll: min(.seconds(1), configuration.pingInterval ?? .seconds(1)),
            threadName: "fcm-curl",
            responseHeaders: ["retry-after"],
            logger: configuration.logger
        )
        let timeout = configuration.requestTimeout
        accessTokens = AccessTokens(
            account: configuration.serviceAccount,
            key: key,
            margin: configuration.accessTokenRenewalMargin,
            timeSource: configuration.timeSource,
            logger: configuration.logger
        ) { url, body in
            let headers = ["content-type: application/x-www-form-urlencoded", "accept: application/json", "expect:"]
            let request = CurlRequest(
                url: url,
                headers: headers,
                body: body,
                deadline: .now + timeout,
                tokenSuffix: "-"
            )
            let answer = try await driver.send(request)
            return (answer.status, answer.body)
        }
        self.configuration = configuration
        self.driver = driver
        sendURL = configuration.endpoint.baseURL + FCMLimits.sendPath(projectId: configuration.effectiveProjectId)
        driver.start()
    }

    deinit { driver.stopAccepting() }

    /// Sends one message and returns FCM's answer, accepted (200, with the message's name) or not (4xx/5xx
    /// with its errorCode, status and `Retry-After`): ``FCMDecision`` tells what it means for the token.
    ///
    /// Checks the message locally first, so a message FCM would refuse as malformed never leaves. A 401
    /// UNAUTHENTICATED (no FcmError) renews the access token and sends once more; the second answer is
    /// returned whatever it is.
    /// - Throws: ``FCMMessageError`` (local refusal, nothing sent); ``AccessTokenError`` when no access token
    ///   could be had; `TransportError` when no answer came; `CancellationError` when the task is cancelled
    ///   (the transfer is dropped).
    public func send(_ message: FCMMessage) async throws -> FCMResponse {
        try await send(message, body: try message.encoded())
    }

    /// ``send(_:)`` with `body`, the message as ``FCMCore/FCMMessage/encoded()`` gives it, made beforehand
    /// (a notification's deliveries share one template, ``FCMCore/FCMMessage/template()``).
    public func send(_ message: FCMMessage, body: Data) async throws -> FCMResponse {
        try await send(body, to: message.token)
    }

    /// Sends `body`, a message to `device` encoded beforehand, as ``send(_:body:)`` does.
    private func send(_ body: Data, to device: FCMRegistrationToken) async throws -> FCMResponse {
        // One deadline for the whole send, token waits and resend included: a caller that starts a send at
        // the latest moment its lease allows (one request timeout before it ends) knows it is over by then.
        let deadline = ContinuousClock.now + configuration.requestTimeout
        let token = try await accessTokens.current(by: deadline)
        let response = try await post(try request(body, token: token, for: device, deadline: deadline))
        guard response.status == 401, response.errorCode == nil else { return response }
        return try await sendAgain(body, to: device, refused: response, token: token, deadline: deadline)
    }

    /// After FCM answered 401 UNAUTHENTICATED to `token`: renews the access token and sends once more,
    /// returning the second answer whatever it is.
    private func sendAgain(
        _ body: Data,
        to device: FCMRegistrationToken,
        refused: FCMResponse,
        token: AccessTokens.Token,
        deadline: ContinuousClock.Instant
    ) async throws -> FCMResponse {
        configuration.logger.info(
            "FCM refused the access token; renewing it",
            ["token.suffix": device.suffix, "fcm.status": refused.errorStatus ?? "-"]
        )
        accessTokens.invalidate(token)
        let renewed = try await accessTokens.current(by: deadline)
        return try await post(try request(body, token: renewed, for: device, deadline: deadline))
    }

    /// Sends `body`, a message to `device` encoded beforehand, as ``send(_:body:)`` does, and calls
    /// `completion` with FCM's answer or the error ``send(_:body:)`` would throw, on the driver thread when
    /// the answer comes, so no task waits for it. A task waits only where the access token must be fetched
    /// first, or renewed after a 401.
    public func submit(
        _ body: Data,
        to device: FCMRegistrationToken,
        completion: @escaping @Sendable (Result<FCMResponse, any Error>) -> Void
    ) {
        guard let token = accessTokens.ready else {
            return Completions.inTask(completion) { try await self.send(body, to: device) }
        }
        let deadline = ContinuousClock.now + configuration.requestTimeout
        let request: CurlRequest
        do { request = try self.request(body, token: token, for: device, deadline: deadline) } catch {
            return completion(.failure(error))
        }
        driver.submit(request) { answer in
            let response = answer.map(self.response)
            guard case .success(let refused) = response, refused.status == 401, refused.errorCode == nil else {
                return completion(response)
            }
            Completions.inTask(completion) {
                try await self.sendAgain(body, to: device, refused: refused, token: token, deadline: deadline)
            }
        }
    }

    /// The request ``send(_:)`` first hands libcurl for `message` (checked, encoded, with the current access
    /// token); `relay-bench` writes them out for the bare libcurl reference.
    package func request(for message: FCMMessage) async throws -> CurlRequest {
        let deadline = ContinuousClock.now + configuration.requestTimeout
        return try request(
            try message.encoded(),
            token: try await accessTokens.current(by: deadline),
            for: message.token,
            deadline: deadline
        )
    }

    /// How many access tokens the client fetched so far (1 after the first send).
    public var accessTokensFetched: Int { accessTokens.minted }

    /// Stops taking requests (later sends throw `TransportError` `.shutdown`), lets queued and in-flight ones
    /// finish or fail (each within its deadline), then ends the driver thread. Safe to call more than once.
    public func shutdown() async { await driver.shutdown() }

    private func request(
        _ body: Data,
        token: AccessTokens.Token,
        for device: FCMRegistrationToken,
        deadline: ContinuousClock.Instant
    ) throws(TransportError) -> CurlRequest {
        let shared = try sharedHeaders.block(for: token.value) {
            [
                "authorization: Bearer " + token.value, "content-type: application/json; charset=utf-8", "accept:",
                "expect:",
            ]
        }
        return CurlRequest(
            url: sendURL,
            headers: [],
            sharedHeaders: shared,
            body: body,
            deadline: deadline,
            tokenSuffix: device.suffix
        )
    }

    private func post(_ request: CurlRequest) async throws -> FCMResponse { response(try await driver.send(request)) }

    /// FCM's answer as the driver read it.
    private func response(_ answer: CurlResponse) -> FCMResponse {
        FCMResponse(
            status: answer.status,
            body: answer.body,
            retryAfterHeader: answer.headers["retry-after"],
            now: configuration.timeSource.now
        )
    }
}
