import APNsCore
import Foundation
import RelayCore
import RelayCrypto

/// The outbox's way to APNs: renders a job as an APNs request, sends it with the app's client for the
/// device's environment (``APNsSenders``) and decides its fate by ``APNsCore/APNsDecision``.
///
/// The payload depends only on the notification and the badge, so it is encoded once per badge value and
/// shared by those deliveries (``RelayCore/NotificationContent/rendering(_:_:)``); the 4,096-byte rule is
/// applied there, by
/// ``APNsCore/ChatPayload/encoded(limit:)``. An ExpiredProviderToken answer renews the provider token and
/// sends once more at once (Apple, "Handling notification responses from APNs").
public final class APNsTransport: PushTransport {
    public let platform = Platform.ios
    /// APNs' documented reasons and this transport's own.
    public static let reasons = Set(APNsReason.documented.map(\.reason.description)).union(["NotAnAPNsToken", "NoApp"])
    public var reasons: Set<String> { Self.reasons }
    public let senders: APNsSenders
    private let retry: RetryPolicy
    private let time: any TimeSource
    private let logger: Logger

    public init(senders: APNsSenders, retry: RetryPolicy, time: any TimeSource, logger: Logger) {
        self.senders = senders
        self.retry = retry
        self.time = time
        self.logger = logger
    }

    /// The name of the APNs payload among a notification's renderings: one per badge value, so the
    /// deliveries of one count share their bytes.
    static func rendering(badge: Int?) -> String {
        badge.map { "apns-payload-badge-\($0)" } ?? "apns-payload"
    }

    /// The request for `job`: for a removal ``removalRequest(for:token:)``'s, for a wake job
    /// ``wakeRequest(for:token:)``'s; otherwise (and for a message
    /// without an id) the alert: push type alert at priority 10, the message's texts within 4,096 bytes and
    /// its notification identifier as apns-collapse-id.
    /// - Throws: ``APNsCore/ChatPayload/TooLarge`` when the payload cannot fit.
    static func request(for job: DeliveryJob, token: DeviceToken) throws -> APNsNotification {
        if let removal = removalRequest(for: job, token: token) { return removal }
        if job.shown.wakes, let wake = wakeRequest(for: job, token: token) { return wake }
        let content = job.content
        let payload = try content.rendering(Self.rendering(badge: job.badge)) {
            try ChatPayload(shown: job.shown).encoded(limit: PushType.alert.maxPayloadBytes)
        }
        return APNsNotification(
            deviceToken: token,
            topic: content.sendAs,
            pushType: .alert,
            priority: .immediate,
            expiration: content.expiration,
            collapseId: content.notificationIdentifier(ChatMessage.notificationIdentifier(messageId:)),
            apnsId: job.pushId,
            payload: payload
        )
    }

    public func send(_ job: DeliveryJob) async -> PushResult {
        await Completions.awaiting { start(job, completion: $0) }
    }

    public func start(_ job: DeliveryJob, completion: @escaping @Sendable (PushResult) -> Void) {
        guard case .apns(let token) = job.token else {
            return completion(.fail(.relayBug, status: nil, reason: "NotAnAPNsToken"))
        }
        let notification: APNsNotification
        do { notification = try Self.request(for: job, token: token) } catch {
            return completion(.fail(.rejected, status: nil, reason: APNsReason.payloadTooLarge.description))
        }
        start(
            notification,
            appId: job.appId,
            environment: token.sendingEnvironment,
            attempts: job.attempts,
            completion: completion
        )
    }

    public func send(_ update: BadgeUpdateJob) async -> PushResult {
        guard case .apns(let token) = update.token else {
            return .fail(.relayBug, status: nil, reason: "NotAnAPNsToken")
        }
        guard let topic = senders.topic(appId: update.appId) else {
            return .fail(.configuration, status: nil, reason: "NoApp")
        }
        let notification = Self.badgeRequest(for: update, token: token, topic: topic)
        return await Completions.awaiting {
            start(
                notification,
                appId: update.appId,
                environment: token.sendingEnvironment,
                attempts: update.attempts,
                completion: $0
            )
        }
    }

    /// Sends `notification` with the app's client for `environment` and calls `completion` with its fate,
    /// on the client's driver thread; on ExpiredProviderToken it renews the provider token and sends once
    /// more (`previousReason` is the reason of the send before). `attempts` were made before this one.
    private func start(
        _ notification: APNsNotification,
        appId: String,
        environment: APNsEnvironment,
        attempts: Int,
        previousReason: APNsReason? = nil,
        completion: @escaping @Sendable (PushResult) -> Void
    ) {
        let sentAt = time.now
        let answered: @Sendable (Result<APNsResponse, any Error>) -> Void = { answer in
            let (result, reason) = self.conclude(
                answer,
                notification,
                appId: appId,
                attempts: attempts,
                previousReason: previousReason,
                sentAt: sentAt
            )
            if let result { return completion(result) }
            self.senders.renewProviderToken(appId: appId)
            self.start(
                notification,
                appId: appId,
                environment: environment,
                attempts: attempts,
                previousReason: reason,
                completion: completion
            )
        }
        do {
            try senders.sender(appId: appId, environment: environment).submit(notification, completion: answered)
        } catch {
            answered(.failure(error))
        }
    }

    /// What one send's `answer` comes to: its result, or nil when the provider token is to be renewed and
    /// the notification sent once more (with the answer's reason).
    private func conclude(
        _ answer: Result<APNsResponse, any Error>,
        _ notification: APNsNotification,
        appId: String,
        attempts: Int,
        previousReason: APNsReason?,
        sentAt: Date
    ) -> (result: PushResult?, reason: APNsReason?) {
        let attempt: APNsDecision.Attempt
        switch answer {
        case .success(let response):
            attempt = .answered(response)
        case .failure(let refused as NotificationError):
            return (.fail(.rejected, status: nil, reason: "\(refused.reason)"), nil)
        case .failure(let error):
            logger.warning(
                "APNs request failed",
                ["error": "\(error)", "app.id": appId, "token.suffix": notification.deviceToken.suffix]
            )
            attempt = .transportFailure
        }
        let decision = APNsDecision.decide(
            attempt,
            attempts: attempts + 1,
            previousReason: previousReason,
            policy: retry,
            random: Double.random(in: 0..<1)
        )
        let response: APNsResponse? = if case .answered(let answer) = attempt { answer } else { nil }
        if case .retry(_, true) = decision { return (nil, response?.reason) }
        return (Self.result(of: decision, response, topic: notification.topic, sentAt: sentAt), nil)
    }

    /// A decision as the outbox takes it. A dead token without an APNs timestamp (BadDeviceToken) is known
    /// bad as of the send.
    private static func result(
        of decision: APNsDecision,
        _ response: APNsResponse?,
        topic: String,
        sentAt: Date
    ) -> PushResult {
        let status = response?.status
        let reason = response?.reason.map { "\($0)" }
        switch decision {
        case .delivered:
            return .delivered(id: response?.apnsId)
        case .retire(let why, let timestamp):
            return .retire(status: status ?? 0, reason: "\(why)", invalidSince: timestamp ?? sentAt)
        case .unlinkTopic(let why):
            return .unlink(sendAs: topic, status: status ?? 0, reason: "\(why)")
        case .retry(let delay, _):
            return .retry(after: delay, status: status, reason: reason ?? (response == nil ? "transport" : nil))
        case .fail(let failure):
            return .fail(failure, status: status, reason: reason ?? failure.rawValue)
        case .credentialsRefused:
            return .credentialsRefused(status: status ?? 0, reason: reason ?? "credentials")
        case .unreachable:
            return .unreachable(reason: PushResult.unreachableReason)
        }
    }

    public func shutdown() async { await senders.shutdown() }
}
