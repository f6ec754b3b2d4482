import APNsCore
import Foundation
import RelayAPNs
import RelayCLI
import RelayCore
import RelayStrictJSON

/// `push-relay send`: one push from the command line, to APNs (`--platform ios`, the default), FCM HTTP v1
/// (`--platform android`) or a browser's push service (`--platform web`); prints the service's answer as
/// JSON and exits 0 only when it accepted the push (1 when refused or not delivered, 2 for a usage mistake).
enum SendCommand {
    static let help = """
        usage: push-relay send [--platform ios] --token HEX --topic BUNDLE_ID [options]
               push-relay send --platform android --token FCM_TOKEN --service-account FILE [options]
               push-relay send --platform web --subscription FILE --vapid-key FILE [options]
          --platform P           ios (default: APNs), android (FCM HTTP v1) or web (Web Push)
        every platform:
          --title T --body B     alert text (default body "Hello from PushRelay")
          --ca FILE              the CA of a mock's TLS certificate (fixtures/tls/ca.pem)
          --timeout SECONDS      give up after this long (default 30)
        ios and android:
          --token T              ios: device token (hex; <..> and spaces are tolerated);
                                 android: FCM registration token, exactly as the app got it
          --endpoint URL         another server, e.g. the mock APNs https://127.0.0.1:2197 or the
                                 mock FCM http://127.0.0.1:2198 (https with --ca)
        ios (APNs):
          --topic ID             apns-topic (bundle id, with the push type's suffix)
          --push-type TYPE       alert (default), background, voip, ...
          --payload FILE         raw JSON payload instead of --title/--body (background: content-available only)
          --priority N           10 (default; 5 for background), 5 or 1
          --expiration SECONDS   apns-expiration, UNIX epoch seconds (0 = deliver once)
          --collapse-id ID       apns-collapse-id (at most 64 bytes)
          --apns-id UUID         apns-id (default: a new one)
          --key-file FILE --key-id KID --team-id TEAM      token auth with a .p8 key
          --cert FILE [--cert-key FILE] [--cert-password P] certificate auth (PEM or .p12)
          --environment ENV      sandbox (default) or production: Apple's hosts
        android (FCM HTTP v1):
          --service-account FILE the service account key file (Firebase console > Project settings >
                                 Service accounts), or the one `push-relay mock-fcm` writes
          --project-id ID        the project to send to (default: the file's project_id)
          --data KEY=VALUE       a data entry, string value; repeat for more
          --ttl SECONDS          android.ttl, 0 to 2419200 (28 days; default 86400)
          --tag TAG              android.notification.tag: replaces a notification with the same tag
        web (Web Push):
          --subscription FILE    a browser's PushSubscription.toJSON(), e.g. the one
                                 `push-relay mock-webpush --new-subscription` prints
          --vapid-key FILE       the VAPID private key (PEM, P-256; `push-relay keys vapid`)
          --subject URI          the VAPID sub claim (default mailto:push-relay@localhost)
          --ttl SECONDS          TTL header (default 86400)
          --room ID              dittoChatRoomId (default push-relay-send)
          --message-id ID        dittoChatMessageId, and the Topic header made from it
          --declarative --open-url URL   Declarative Web Push, navigate = URL ({roomId}, {messageId} filled)
                                 with --ca, or to an http endpoint, the endpoint must be on loopback and its
                                 origin is taken as a mock push service (`push-relay mock-webpush`)
        the answer is printed as JSON; for android and web with the device's fate ("fate":"delivered",
        "retire", "retry", "fail", ...) as the relay would decide it
        """

    /// The body of a push given no `--body`.
    static let defaultBody = "Hello from PushRelay"

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: SendPlatform.switches,
            options: SendPlatform.allOptions,
            repeatable: SendPlatform.repeatableOptions,
            positional: 0
        )
        if arguments.flag("help") {
            say(help)
            return 0
        }
        switch try SendPlatform(from: arguments) {
        case .ios: return try await sendAPNs(arguments)
        case .android: return try await sendFCM(arguments)
        case .web: return try await sendWebPush(arguments)
        }
    }

    /// `send --platform ios`: one notification to APNs.
    static func sendAPNs(_ arguments: Arguments) async throws -> Int32 {
        let notification = try notification(from: arguments)
        var configuration = APNsClientConfiguration(
            endpoint: try endpoint(from: arguments),
            authentication: try authentication(from: arguments)
        )
        configuration.requestTimeout = .seconds(try arguments.positiveInteger("timeout", default: 30))
        let client = try APNsClient(configuration: configuration)
        let result: Result
        do {
            let response = try await client.send(notification)
            result = Result(response, apnsId: notification.apnsIdHeader)
        } catch let refused as NotificationError {
            result = Result(error: "refused_locally", reason: "\(refused.reason)", message: refused.message)
        } catch {
            result = Result(error: "not_delivered", reason: nil, message: "\(error)")
        }
        await client.shutdown()
        try printJSON(result)
        return result.status == 200 ? 0 : 1
    }

    /// The `fate` and `failure` fields printed for a push service's decision on the answer.
    static func fate(of decision: some NamedFate) -> (fate: String, failure: String?) {
        (decision.fateName, decision.failure?.rawValue)
    }

    /// Prints `value` as one line of JSON, keys sorted.
    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        say(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// What `send --platform ios` prints.
    struct Result: Encodable {
        var status: Int?
        var apnsId: String?
        var apnsUniqueId: String?
        var reason: String?
        /// 410 only: the time APNs gave, ISO 8601, and as the MILLISECONDS it sent.
        var timestamp: String?
        var timestampMilliseconds: Int64?
        var error: String?
        var message: String?

        init(_ response: APNsResponse, apnsId: String) {
            status = response.status
            self.apnsId = response.apnsId ?? apnsId
            apnsUniqueId = response.apnsUniqueId
            reason = response.reason.map { "\($0)" }
            timestamp = response.timestamp.map(Timestamp.rfc3339)
            timestampMilliseconds = response.timestamp.map(Timestamp.milliseconds)
        }

        init(error: String, reason: String?, message: String) {
            self.error = error
            self.reason = reason
            self.message = message
        }
    }

    static func notification(from arguments: Arguments) throws -> APNsNotification {
        guard let tokenText = arguments.value("token") else {
            throw Arguments.Problem(description: "--token is required")
        }
        guard let topic = arguments.value("topic") else { throw Arguments.Problem(description: "--topic is required") }
        let token: DeviceToken
        do { token = try DeviceToken(parsing: tokenText) } catch {
            throw Arguments.Problem(description: error.description)
        }
        let pushTypeName = arguments.value("push-type") ?? "alert"
        guard let pushType = PushType(rawValue: pushTypeName) else {
            throw Arguments.Problem(description: "--push-type '\(pushTypeName)' is not an APNs push type")
        }
        let defaultPriority = pushType == .background ? 5 : 10
        let priorityValue = try arguments.integer("priority", default: defaultPriority)!
        guard let priority = Priority(rawValue: priorityValue) else {
            throw Arguments.Problem(description: "--priority must be 10, 5 or 1")
        }
        let payload: Data
        if let file = arguments.value("payload") {
            do { payload = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw Arguments.Problem(description: "cannot read --payload \(file)")
            }
            // One read: the strict syntax check also says whether the top is an object (its keys).
            let keys: [String]?
            do throws(StrictJSON.Problem) { keys = try StrictJSON.checkRequestBody(payload) } catch {
                throw Arguments.Problem(description: "--payload \(file) is not strict JSON: \(error.withoutExcerpt)")
            }
            guard keys != nil else { throw Arguments.Problem(description: "--payload \(file) must hold a JSON object") }
        } else {
            // A background push must not alert (Apple refuses it, as the mock does): it only wakes the app.
            let aps =
                pushType == .background
                ? APS(contentAvailable: 1)
                : APS(
                    alert: .init(title: arguments.value("title"), body: arguments.value("body") ?? defaultBody),
                    sound: "default"
                )
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            payload = try encoder.encode(["aps": aps])
        }
        var apnsId = UUID()
        if let text = arguments.value("apns-id") {
            guard let parsed = UUID(canonical: text) else {
                throw Arguments.Problem(description: "--apns-id must be a UUID (8-4-4-4-12 hex digits)")
            }
            apnsId = parsed
        }
        return APNsNotification(
            deviceToken: token,
            topic: topic,
            pushType: pushType,
            priority: priority,
            expiration: try arguments.integer("expiration"),
            collapseId: arguments.value("collapse-id"),
            apnsId: apnsId,
            payload: payload
        )
    }

    /// `--endpoint URL` (a mock, or a host of one's own), or Apple's host of `--environment`; not both.
    static func endpoint(from arguments: Arguments) throws -> APNsClientConfiguration.Endpoint {
        if let url = arguments.value("endpoint") {
            guard arguments.value("environment") == nil else {
                throw Arguments.Problem(description: "--environment is Apple's host; --endpoint URL names another")
            }
            return .custom(baseURL: url, caFile: arguments.value("ca"))
        }
        switch arguments.value("environment") ?? "sandbox" {
        case "sandbox": return .sandbox
        case "production": return .production
        case let other: throw Arguments.Problem(description: "--environment '\(other)' must be sandbox or production")
        }
    }

    static func authentication(from arguments: Arguments) throws -> APNsClientConfiguration.Authentication {
        if let certificate = arguments.value("cert") {
            return .certificate(
                certificatePath: certificate,
                keyPath: arguments.value("cert-key"),
                password: arguments.value("cert-password")
            )
        }
        guard let key = arguments.value("key-file"), let keyId = arguments.value("key-id"),
            let teamId = arguments.value("team-id")
        else { throw Arguments.Problem(description: "give --key-file, --key-id and --team-id, or --cert") }
        return .token(key: key, keyId: keyId, teamId: teamId)
    }
}
