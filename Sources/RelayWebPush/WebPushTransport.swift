import Foundation
import RelayCore
import RelayCurl
import WebPushCore

/// The outbox's way to browsers: renders a job as a Web Push message (``WebPushCore/WebPushPayload``),
/// sends it with its app's ``WebPushClient`` (made on first use, one per app: one VAPID key and its cached
/// tokens, one set of origin limits) and decides its fate by ``WebPushCore/WebPushDecision``.
///
/// The payload depends only on the notification and the app, so it is encoded once and shared by its
/// deliveries (``RelayCore/NotificationContent/rendering(_:_:)``); each delivery encrypts it for its own
/// subscription. `TTL` is what is left of the notification's expiration, at most the app's `ttlSeconds`;
/// `Topic` comes from the message id. Browsers get no badge, wake or removal pushes (each push must show a
/// notification): such jobs fail without a send.
public final class WebPushTransport: PushTransport {
    public let platform = Platform.web
    /// The push services' answers by name (``WebPushCore/WebPushResponse/reason``), the refusals of this
    /// transport before a send (``WebPushRefusal``) and its own failures.
    public static let reasons = Set(WebPushResponse.namedStatuses.values).union([
        WebPushRefusal.Code.endpointNotAllowed.description, WebPushRefusal.Code.originPaused.description,
        WebPushRefusal.Code.originBusy.description, notForBrowsers, "NotAWebSubscription", "WebPushNotConfigured",
        "InvalidSubscription", "PayloadTooLarge", "NonPublicAddress", "addressRefused", "responseTooLarge",
    ])
    public var reasons: Set<String> { Self.reasons }
    private let clients: AppClients<WebPushClientConfiguration, WebPushClient>
    private let retry: RetryPolicy
    private let time: any TimeSource
    private let logger: Logger

    /// - Parameter configurations: each web app's client settings, by app id; an app without one has no
    ///   Web Push.
    public init(
        configurations: [String: WebPushClientConfiguration],
        retry: RetryPolicy,
        time: any TimeSource,
        logger: Logger
    ) {
        clients = AppClients(configurations, logger: logger) { configuration, logger in
            var configuration = configuration
            configuration.logger = logger
            return try WebPushClient(configuration: configuration)
        }
        self.retry = retry
        self.time = time
        self.logger = logger
    }

    /// The reason of a job that browsers are not sent (badge update, wake, removal).
    public static let notForBrowsers = "NotForBrowsers"

    public func send(_ job: DeliveryJob) async -> PushResult {
        guard case .web(let token) = job.token, let stored = token.subscription else {
            return .fail(.relayBug, status: nil, reason: "NotAWebSubscription")
        }
        guard job.mode == .alert, job.content.message.removedMessageId == nil else {
            return .fail(.relayBug, status: nil, reason: Self.notForBrowsers)
        }
        let client: WebPushClient
        do {
            guard let made = try clients.client(appId: job.appId) else {
                return .fail(.configuration, status: nil, reason: "WebPushNotConfigured")
            }
            client = made
        } catch {
            logger.error("Web Push client cannot be made", ["app.id": job.appId, "error": "\(error)"])
            return .fail(.configuration, status: nil, reason: "WebPushNotConfigured")
        }
        let subscription: ValidatedSubscription
        do {
            subscription = try JSONDecoder().decode(WebPushSubscription.self, from: Data(stored.utf8))
                .validated(allowingHTTP: true)
        } catch {
            return .fail(.rejected, status: nil, reason: "InvalidSubscription")
        }
        let plaintext: Data
        do { plaintext = try Self.plaintext(for: job, configuration: client.configuration) } catch {
            return .fail(.rejected, status: nil, reason: "PayloadTooLarge")
        }
        let ttl = min(client.configuration.ttlSeconds, job.content.secondsToLive(at: time.now) ?? Int.max)
        let message = WebPushMessage(
            subscription: subscription,
            plaintext: plaintext,
            ttlSeconds: ttl,
            topic: job.content.message.messageId.map(Topic.init(messageId:))
        )
        return await send(message, with: client, job: job)
    }

    /// Browsers show no badge: an update fails without a send.
    public func send(_ update: BadgeUpdateJob) async -> PushResult {
        .fail(.relayBug, status: nil, reason: Self.notForBrowsers)
    }

    /// The JSON a browser receives for `job` under `configuration`: the service worker's shape, or the
    /// declarative one with the filled `openURL`; made once per notification.
    /// - Throws: ``WebPushCore/WebPushError`` `.payloadTooLarge` when it cannot fit one record.
    static func plaintext(for job: DeliveryJob, configuration: WebPushClientConfiguration) throws -> Data {
        let openURL = configuration.declarative ? configuration.openURL : nil
        return try job.content.rendering(openURL == nil ? "webpush-plain" : "webpush-declarative") {
            try WebPushPayload(shown: job.content.shown, openURL: openURL).encoded()
        }
    }

    /// Sends `message`, rendered for `job`, with `client` and answers its fate.
    private func send(_ message: WebPushMessage, with client: WebPushClient, job: DeliveryJob) async -> PushResult {
        let endpoint = message.subscription.endpoint
        let appId = job.appId, attempts = job.attempts
        // What a line about this push carries, to join it with the dispatcher's (never the endpoint itself).
        let context: Logger.Metadata = [
            "app.id": appId, "push.id": job.pushId.lowercasedString, "token.suffix": job.token.suffix,
            "push.endpoint": endpoint.logDescription,
        ]
        let sentAt = time.now
        let attempt: WebPushDecision.Attempt
        do {
            attempt = .answered(try await client.send(message))
        } catch let refusal as WebPushRefusal {
            return result(of: refusal, now: sentAt)
        } catch let failure as TransportError where failure.code == .addressRefused {
            logger.warning("push endpoint refused: its host resolves to no public address", context)
            return .fail(.rejected, status: nil, reason: "NonPublicAddress")
        } catch let failure as TransportError where failure.code == .responseTooLarge {
            // An answer is a few hundred bytes; a longer one is a service not to be asked again.
            logger.warning("push service answered beyond the cap; delivery failed", context)
            return .fail(.rejected, status: nil, reason: "responseTooLarge")
        } catch let failure as WebPushError {
            logger.error("Web Push message cannot be made", context.merging(["error": failure.message]) { $1 })
            return .fail(.relayBug, status: nil, reason: "\(failure.code)")
        } catch {
            logger.warning("Web Push request failed", context.merging(["error": "\(error)"]) { $1 })
            attempt = .transportFailure
        }
        let decision = WebPushDecision.decide(
            attempt,
            attempts: attempts + 1,
            policy: retry,
            maxRetryAfter: client.configuration.maxRetryAfter,
            random: Double.random(in: 0..<1)
        )
        let response: WebPushResponse? = if case .answered(let answer) = attempt { answer } else { nil }
        let status = response?.status
        switch decision {
        case .delivered:
            return .delivered(id: response?.messageId)
        case .retire:
            return .retire(status: status ?? 0, reason: response?.reason ?? "Gone", invalidSince: sentAt)
        case .retry(let delay):
            return .retry(after: delay, status: status, reason: response?.reason ?? "transport")
        case .fail(let failure):
            return .fail(failure, status: status, reason: response?.reason ?? failure.rawValue)
        case .forbidden:
            return .fail(.rejected, status: status, reason: response?.reason ?? "Forbidden")
        }
    }

    /// A push the client did not send: a forbidden endpoint's fails; a paused origin's is held until its
    /// next probe, a busy origin's for a fraction of a second, until a slot is likely free (neither is an
    /// attempt: a room of one push service's subscriptions is sent at that origin's pace).
    private func result(of refusal: WebPushRefusal, now: Date) -> PushResult {
        let reason = refusal.code.description
        if refusal.code == .endpointNotAllowed { return .fail(.rejected, status: nil, reason: reason) }
        let soon = Duration.milliseconds(Int.random(in: 100...300))
        let delay = refusal.until.map { Duration.seconds(max(0, $0.timeIntervalSince(now))) } ?? soon
        return .held(after: delay, reason: reason)
    }

    /// Loads every web app's VAPID key and checks its subject as its first send would
    /// (``WebPushCore/VAPIDSubject``), so a key file that cannot sign or a subject the client refuses stops
    /// the relay (and `config check`) instead of failing every web push.
    /// - Throws: ``RelayCore/Configuration/Invalid`` with one line per key or subject that cannot be used.
    public static func checkCredentials(_ apps: [Configuration.App]) throws(Configuration.Invalid) {
        let problems = apps.enumerated().flatMap { index, app -> [String] in
            guard let webPush = app.webPush else { return [] }
            var problems: [String] = []
            if let subject = webPush.subject {
                do throws(WebPushError) { _ = try VAPIDSubject(validating: subject) } catch {
                    problems.append("apps[\(index)].webPush.subject: \(error.message)")
                }
            }
            if let file = webPush.vapidKeyFile {
                do { _ = try VAPIDKey(privateKeyPEM: try String(contentsOfFile: file, encoding: .utf8)) } catch {
                    problems.append("apps[\(index)].webPush.vapidKeyFile: cannot sign: \(error)")
                }
            }
            return problems
        }
        if !problems.isEmpty { throw Configuration.Invalid(problems) }
    }

    public func shutdown() async { await clients.shutdown() }
}

extension WebPushClient: PushServiceClient {}
