import FCMCore
import Foundation
import RelayCore
import RelayCrypto
import RelayCurl

/// The outbox's way to FCM: renders a job as an FCM HTTP v1 message, sends it with its app's
/// ``FCMClient`` (made on first use, one per app: one service account's access token shared by all its
/// sends) and decides its fate by ``FCMCore/FCMDecision``.
///
/// The message's `android.ttl` is what is left of the notification's expiration when it is sent, so a
/// retry does not extend it; FCM's 4,096-byte limit is applied by ``FCMMessage/encoded()``.
public final class FCMTransport: PushTransport {
    public let platform = Platform.android
    /// FCM's documented error codes, the `google.rpc` statuses its answers name, and this transport's own
    /// (its message refusals, ``FCMMessageError``).
    public static let reasons = Set(FCMErrorCode.documented.map(\.code.description)).union([
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
        "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
        "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
        "NotAnFCMToken", "FCMNotConfigured", "tooLarge", "reservedDataKey", "invalidTTL", accessTokenRefused,
    ])
    /// The reason of a send held because the token endpoint refused the app's service account (a 4xx OAuth
    /// error, ``AccessTokenError/isConfigurationProblem``): a refusal of the relay's credentials.
    public static let accessTokenRefused = "AccessTokenRefused"
    public var reasons: Set<String> { Self.reasons }
    private let clients: AppClients<FCMClientConfiguration, FCMClient>
    private let retry: RetryPolicy
    private let time: any TimeSource
    private let logger: Logger

    /// - Parameter configurations: each FCM app's client settings, by app id; an app without one has no FCM.
    public init(
        configurations: [String: FCMClientConfiguration],
        retry: RetryPolicy,
        time: any TimeSource,
        logger: Logger
    ) {
        clients = AppClients(configurations, logger: logger) { configuration, logger in
            var configuration = configuration
            configuration.logger = logger
            return try FCMClient(configuration: configuration)
        }
        self.retry = retry
        self.time = time
        self.logger = logger
    }

    public func send(_ job: DeliveryJob) async -> PushResult {
        await Completions.awaiting { start(job, completion: $0) }
    }

    public func start(_ job: DeliveryJob, completion: @escaping @Sendable (PushResult) -> Void) {
        guard case .fcm(let token) = job.token else {
            return completion(.fail(.relayBug, status: nil, reason: "NotAnFCMToken"))
        }
        let ttlSeconds = min(
            job.content.secondsToLive(at: time.now) ?? FCMLimits.maxTTLSeconds,
            FCMLimits.maxTTLSeconds
        )
        // The whole message is made only where the body is: for a rendering's first push, or when the
        // template cannot take the token. Every other push is the template with its token.
        let message = {
            let shown = job.shown
            return if let removed = shown.removedMessageId {
                FCMMessage(token: token, removing: removed, ttlSeconds: ttlSeconds)
            } else if shown.wakes {
                FCMMessage(token: token, waking: shown, ttlSeconds: ttlSeconds)
            } else {
                FCMMessage(token: token, shown: shown, ttlSeconds: ttlSeconds)
            }
        }
        // What the message depends on besides the token: the content (the rendering's owner), the job's
        // badge and mode, the TTL and the token's length.
        let name = "fcm-\(job.mode.rawValue)-\(job.badge ?? -1)-\(ttlSeconds)-\(token.value.utf8.count)"
        let body: Data
        do {
            let template = try job.content.rendering(name) { try message().template() }
            body = try FCMMessage.encoded(token: token, template: template) ?? message().encoded()
        } catch let refused as FCMMessageError {
            return completion(.fail(.rejected, status: nil, reason: "\(refused.code)"))
        } catch {
            return completion(.fail(.relayBug, status: nil, reason: "\(error)"))
        }
        start(body, to: token, appId: job.appId, attempts: job.attempts, completion: completion)
    }

    public func send(_ update: BadgeUpdateJob) async -> PushResult {
        guard case .fcm(let token) = update.token else {
            return .fail(.relayBug, status: nil, reason: "NotAnFCMToken")
        }
        let message = FCMMessage(token: token, unread: update.badge, ttlSeconds: BadgeUpdateJob.timeToLiveSeconds)
        let body: Data
        do { body = try message.encoded() } catch { return .fail(.rejected, status: nil, reason: "\(error.code)") }
        return await Completions.awaiting {
            start(body, to: token, appId: update.appId, attempts: update.attempts, completion: $0)
        }
    }

    /// Sends `body`, a message to `device`, with the app's client and calls `completion` with its fate by
    /// ``FCMCore/FCMDecision``, on the client's driver thread. `attempts` were made before this one.
    private func start(
        _ body: Data,
        to device: FCMRegistrationToken,
        appId: String,
        attempts: Int,
        completion: @escaping @Sendable (PushResult) -> Void
    ) {
        let client: FCMClient
        do {
            guard let made = try clients.client(appId: appId) else {
                return completion(.fail(.configuration, status: nil, reason: "FCMNotConfigured"))
            }
            client = made
        } catch {
            logger.error("FCM client cannot be made", ["app.id": appId, "error": "\(error)"])
            return completion(.fail(.configuration, status: nil, reason: "FCMNotConfigured"))
        }
        let sentAt = time.now
        client.submit(body, to: device) { answer in
            completion(self.result(of: answer, to: device, appId: appId, attempts: attempts, sentAt: sentAt))
        }
    }

    /// The fate of a send that `answer`ed, by ``FCMCore/FCMDecision``.
    private func result(
        of answer: Result<FCMResponse, any Error>,
        to device: FCMRegistrationToken,
        appId: String,
        attempts: Int,
        sentAt: Date
    ) -> PushResult {
        let attempt: FCMDecision.Attempt
        switch answer {
        case .success(let response):
            attempt = .answered(response)
        case .failure(let refused as AccessTokenError) where refused.isConfigurationProblem:
            logger.warning(
                "FCM's token endpoint refused the service account",
                ["error": "\(refused)", "app.id": appId, "token.suffix": device.suffix]
            )
            attempt = .accessTokenRefused(status: refused.status)
        case .failure(let error):
            logger.warning(
                "FCM request failed",
                ["error": "\(error)", "app.id": appId, "token.suffix": device.suffix]
            )
            attempt = .transportFailure
        }
        let decision = FCMDecision.decide(
            attempt,
            attempts: attempts + 1,
            policy: retry,
            random: Double.random(in: 0..<1)
        )
        let (response, status, reason): (FCMResponse?, Int?, String?) =
            switch attempt {
            case .answered(let answer):
                (
                    answer, answer.status,
                    answer.errorCode.map { "\($0)" } ?? answer.errorStatus ?? "HTTP \(answer.status)"
                )
            case .accessTokenRefused(let status): (nil, status, Self.accessTokenRefused)
            case .transportFailure: (nil, nil, nil)
            }
        switch decision {
        case .delivered:
            return .delivered(id: response?.name)
        case .retire(let code):
            return .retire(status: status ?? 0, reason: "\(code)", invalidSince: sentAt)
        case .retry(let delay):
            return .retry(after: delay, status: status, reason: reason ?? "transport")
        case .fail(let failure):
            return .fail(failure, status: status, reason: reason ?? failure.rawValue)
        case .credentialsRefused:
            return .credentialsRefused(status: status ?? 0, reason: reason ?? "credentials")
        case .unreachable:
            return .unreachable(reason: PushResult.unreachableReason)
        }
    }

    /// Loads every FCM app's service-account key as its first send would, so a key that cannot sign (not
    /// PEM, not RSA, too short) stops the relay (and `config check`) instead of failing every Android push.
    /// - Throws: ``Configuration/Invalid`` with one line per app whose key cannot be used, by its key path.
    public static func checkCredentials(_ apps: [Configuration.App]) throws(Configuration.Invalid) {
        let problems = apps.enumerated().compactMap { index, app -> String? in
            guard let file = app.fcm?.serviceAccountFile else { return nil }
            do {
                _ = try RS256Key(privateKeyPEM: try FCMServiceAccount(contentsOfFile: file).privateKey)
                return nil
            } catch {
                return "apps[\(index)].fcm.serviceAccountFile: private_key cannot sign: \(error)"
            }
        }
        if !problems.isEmpty { throw Configuration.Invalid(problems) }
    }

    public func shutdown() async { await clients.shutdown() }
}

extension FCMClient: PushServiceClient {}
