import Foundation
import RelayAPNs
import RelayCLI
import RelayCore

/// `push-relay send`: one push from the command line; prints APNs' answer as JSON and exits 0 only when
/// APNs accepted it (1 when refused or not delivered, 2 for a usage mistake).
enum SendCommand {
    static let help = """
        usage: push-relay send --token HEX --topic BUNDLE_ID [options]
          --token HEX            device token (hex; <..> and spaces are tolerated)
          --topic ID             apns-topic (bundle id, with the push type's suffix)
          --push-type TYPE       alert (default), background, voip, ...
          --title T --body B     alert text (default body "Hello from PushRelay")
          --payload FILE         raw JSON payload instead of --title/--body
          --priority N           10 (default; 5 for background), 5 or 1
          --expiration SECONDS   apns-expiration, UNIX epoch seconds (0 = deliver once)
          --collapse-id ID       apns-collapse-id (at most 64 bytes)
          --apns-id UUID         apns-id (default: a new one)
          --key-file FILE --key-id KID --team-id TEAM      token auth with a .p8 key
          --cert FILE [--cert-key FILE] [--cert-password P] certificate auth (PEM or .p12)
          --environment ENV      sandbox (default) or production: Apple's hosts
          --endpoint URL [--ca FILE]   another server, e.g. the mock: https://127.0.0.1:2197
          --timeout SECONDS      give up after this long (default 30)
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: ["help"],
            options: [
                "token", "topic", "push-type", "title", "body", "payload", "priority", "expiration", "collapse-id",
                "apns-id", "key-file", "key-id", "team-id", "cert", "cert-key", "cert-password", "environment",
                "endpoint", "ca", "timeout",
            ],
            positional: 0
        )
        if arguments.flag("help") {
            say(help)
            return 0
        }
        let notification = try notification(from: arguments)
        var configuration = APNsClientConfiguration(
            endpoint: try endpoint(from: arguments),
            authentication: try authentication(from: arguments)
        )
        configuration.requestTimeout = .seconds(try arguments.integer("timeout", default: 30)!)
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        say(String(decoding: try encoder.encode(result), as: UTF8.self))
        return result.status == 200 ? 0 : 1
    }

    /// What `send` prints.
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
        } else {
            let aps = APS(
                alert: .init(title: arguments.value("title"), body: arguments.value("body") ?? "Hello from PushRelay"),
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

    static func endpoint(from arguments: Arguments) throws -> APNsClientConfiguration.Endpoint {
        if let url = arguments.value("endpoint") { return .custom(baseURL: url, caFile: arguments.value("ca")) }
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
