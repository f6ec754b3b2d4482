import Foundation
import RelayCLI
import RelayCore
import RelayWebPush
import WebPushCore

extension SendCommand {
    /// The room a web push names when no `--room` is given.
    static let defaultRoom = "push-relay-send"
    /// The most bytes of a `--subscription` file read: a browser's subscription JSON is a few hundred.
    static let maxSubscriptionBytes = 16 * 1024

    /// `send --platform web`: one push message to a browser's push subscription (RFC 8030), encrypted for it
    /// (RFC 8291) and signed with the VAPID key `--vapid-key` (RFC 8292); prints the push service's answer with
    /// the subscription's fate (``WebPushCore/WebPushDecision``) and exits 0 only when it took the message.
    static func sendWebPush(_ arguments: Arguments) async throws -> Int32 {
        let (subscription, configuration) = try webPushTarget(from: arguments)
        let message = try webPushMessage(to: subscription, configuration: configuration, arguments: arguments)
        let client = try WebPushClient(configuration: configuration)
        let result: WebPushResult
        do {
            result = WebPushResult(try await client.send(message), configuration: configuration)
        } catch let refused as WebPushRefusal {
            result = WebPushResult(error: "refused_locally", reason: "\(refused.code)", message: refused.message)
        } catch let failed as WebPushError {
            result = WebPushResult(error: "refused_locally", reason: "\(failed.code)", message: failed.message)
        } catch {
            result = WebPushResult(error: "not_delivered", reason: nil, message: "\(error)")
        }
        await client.shutdown()
        try printJSON(result)
        return result.fate == "delivered" ? 0 : 1
    }

    /// What `send --platform web` prints: the push service's answer, or why there was none.
    ///
    /// Accepted: `{"fate":"delivered","messageId":"…","status":201}`. Refused:
    /// `{"fate":"retire","reason":"Gone","status":410}`, `{"fate":"retry","reason":"TooManyRequests",
    /// "retryAfterSeconds":30,"status":429}`. No answer: `error` (`refused_locally`, `not_delivered`),
    /// `reason`, `message`.
    struct WebPushResult: Encodable {
        /// The HTTP status the push service answered.
        var status: Int?
        /// The push message's id: the last segment of `Location`, on 201.
        var messageId: String?
        /// The push service's `Retry-After`, in SECONDS.
        var retryAfterSeconds: Int64?
        /// What the relay would do with the subscription: `delivered`, `retire`, `retry`, `fail` or
        /// `forbidden` (403: the VAPID key is refused; several such refusals pause the origin).
        var fate: String?
        /// Why, for `fail`: `rejected`, ...
        var failure: String?
        var error: String?
        /// The status's name (`Gone`, `PayloadTooLarge`, ...), or the local refusal's code.
        var reason: String?
        /// What went wrong before an answer.
        var message: String?

        init(_ response: WebPushResponse, configuration: WebPushClientConfiguration) {
            status = response.status
            messageId = response.messageId
            retryAfterSeconds = response.retryAfter?.components.seconds
            reason = response.isAccepted ? nil : response.reason
            let decision = WebPushDecision.decide(
                .answered(response),
                attempts: 1,
                policy: RetryPolicy(),
                maxRetryAfter: configuration.maxRetryAfter,
                random: 0
            )
            (fate, failure) = SendCommand.fate(of: decision)
        }

        init(error: String, reason: String?, message: String) {
            self.error = error
            self.reason = reason
            self.message = message
        }
    }

    /// The subscription `--subscription` holds and the client settings the options describe. With `--ca`, or
    /// to a plain http endpoint, the endpoint must be on loopback and its origin is the client's mock push
    /// service (``RelayWebPush/WebPushClientConfiguration/mock``), verified with `--ca`.
    /// - Throws: ``Arguments/Problem`` for a missing or unusable `--subscription` or `--vapid-key` file, a
    ///   `--subject` that is not `mailto:`/`https:`, `--declarative` without `--open-url`, `--ca` or http to a
    ///   host that is not loopback, or a `--timeout` that is not positive.
    static func webPushTarget(
        from arguments: Arguments
    ) throws(Arguments.Problem) -> (ValidatedSubscription, WebPushClientConfiguration) {
        let subscriptionFile = try requiredFile(
            arguments,
            "subscription",
            "a browser's PushSubscription.toJSON(), e.g. from `push-relay mock-webpush --new-subscription`"
        )
        let keyFile = try requiredFile(arguments, "vapid-key", "the VAPID private key, from `push-relay keys vapid`")
        let subscription: WebPushSubscription
        let data = try readSmallFile(subscriptionFile, limit: maxSubscriptionBytes, option: "subscription")
        do {
            subscription = try JSONDecoder().decode(WebPushSubscription.self, from: data)
        } catch {
            var problem = "not JSON"
            if let error = error as? DecodingError, !error.isDataCorrupted { problem = error.configurationProblem }
            throw Arguments.Problem(
                description: "--subscription \(subscriptionFile): not a push subscription's JSON ({\"endpoint\", "
                    + "\"keys\": {\"p256dh\", \"auth\"}}): \(problem)"
            )
        }
        let endpoint: PushEndpoint
        do { endpoint = try PushEndpoint(validating: subscription.endpoint, allowingHTTP: true) } catch {
            throw Arguments.Problem(description: "--subscription: \(error.message)")
        }
        let caFile = arguments.value("ca")
        let isMock = caFile != nil || endpoint.url.scheme?.lowercased() == "http"
        if isMock, !Configuration.isLoopback(endpoint.url.host ?? "") {
            throw Arguments.Problem(
                description: "--ca and http endpoints are for a mock push service on loopback, not "
                    + endpoint.logDescription
            )
        }
        let validated: ValidatedSubscription
        do { validated = try subscription.validated(allowingHTTP: isMock) } catch {
            throw Arguments.Problem(description: "--subscription: \(error.message)")
        }
        var configuration: WebPushClientConfiguration
        let pem = String(
            decoding: try readSmallFile(keyFile, limit: maxSubscriptionBytes, option: "vapid-key"),
            as: UTF8.self
        )
        do {
            configuration = try WebPushClientConfiguration(
                vapidKeyPEM: pem,
                subject: arguments.value("subject", default: Configuration.WebPush.developmentSubject)
            )
        } catch {
            throw Arguments.Problem(description: "--vapid-key \(keyFile): not a P-256 private key (PEM): \(error)")
        }
        configuration.declarative = arguments.flag("declarative")
        configuration.openURL = arguments.value("open-url")
        if isMock { configuration.mock = .init(baseURL: endpoint.origin, caFile: caFile) }
        configuration.requestTimeout = .seconds(try arguments.positiveInteger("timeout", default: 30))
        let problems = configuration.problems().map { $0.replacingOccurrences(of: "openURL", with: "--open-url") }
        guard problems.isEmpty else { throw Arguments.Problem(description: problems.joined(separator: "; ")) }
        return (validated, configuration)
    }

    /// The message the options describe: the payload the relay renders for a chat message
    /// (``WebPushCore/WebPushPayload``) with `--title`, `--body`, `--room` and `--message-id` (its `Topic`
    /// too), the declarative shape with `--declarative`, and `TTL` `--ttl`.
    /// - Throws: ``Arguments/Problem`` for a negative `--ttl` or a payload that does not fit one record.
    static func webPushMessage(
        to subscription: ValidatedSubscription,
        configuration: WebPushClientConfiguration,
        arguments: Arguments
    ) throws(Arguments.Problem) -> WebPushMessage {
        let ttl = try arguments.integer("ttl", default: configuration.ttlSeconds)!
        guard ttl >= 0 else { throw Arguments.Problem(description: "--ttl must not be negative, got \(ttl)") }
        let messageId = arguments.value("message-id")
        let shown = ShownMessage(
            kind: .message,
            title: arguments.value("title"),
            body: arguments.value("body") ?? defaultBody,
            roomId: arguments.value("room", default: defaultRoom),
            messageId: messageId
        )
        let payload = WebPushPayload(shown: shown, openURL: configuration.declarative ? configuration.openURL : nil)
        let plaintext: Data
        do { plaintext = try payload.encoded() } catch { throw Arguments.Problem(description: error.message) }
        return WebPushMessage(
            subscription: subscription,
            plaintext: plaintext,
            ttlSeconds: ttl,
            topic: messageId.map(Topic.init(messageId:))
        )
    }

    /// `--name`'s value, or a problem saying what the file is.
    private static func requiredFile(
        _ arguments: Arguments,
        _ name: String,
        _ what: String
    ) throws(Arguments.Problem) -> String {
        guard let path = arguments.value(name) else {
            throw Arguments.Problem(description: "--\(name) FILE is required with --platform web (\(what))")
        }
        return path
    }

    /// The bytes of `path`, given as `--option`, refusing a file of more than `limit` bytes.
    private static func readSmallFile(_ path: String, limit: Int, option: String) throws(Arguments.Problem) -> Data {
        guard !FileManager.default.isDirectory(atPath: path) else {
            throw Arguments.Problem(description: "--\(option) \(path): a directory, not a file")
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw Arguments.Problem(description: "--\(option) \(path): no such file, or it cannot be read")
        }
        guard data.count <= limit else {
            throw Arguments.Problem(description: "--\(option) \(path): larger than \(limit) bytes")
        }
        return data
    }
}
