import FCMCore
import Foundation
import RelayCore
import RelayCrypto

/// Checks a `messages:send` body the way FCM does and names the first problem with FCM's answer.
///
/// Rules (Firebase, "REST Resource: projects.messages", "FCM error codes"), each a 400 INVALID_ARGUMENT:
/// the body over ``FCMLimits/maxMessageBytes``; not a JSON object `{"message": {...}}` (`validate_only`
/// allowed beside it); an unknown field in the message, its `notification` or its `android`; no `token`
/// (the mock serves tokens, not topics); a token outside FCM's alphabet or length (with the FcmError
/// message naming the registration token); a `data` value that is not a string (a BadRequest naming
/// `message.data[<key>].value`); a reserved `data` key; a `notification` field that is not a string; an
/// `android.priority` other than `HIGH`/`NORMAL`; an `android.ttl` that is not a duration string of at
/// most 28 days (`"86400s"`, `"3.5s"`); an `android.notification.tag` that is not a string.
enum MessageValidator {
    /// Body bytes kept per stream: one more than the limit, so an oversized body is seen as such.
    static let bodyLimit = FCMLimits.maxMessageBytes + 1

    static let messageFields: Set<String> = [
        "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition",
    ]
    static let notificationFields: Set<String> = ["title", "body", "image"]
    static let androidFields: Set<String> = [
        "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options",
        "direct_boot_ok",
    ]

    /// The registration token of a valid message, or the answer refusing it.
    static func check(body: [UInt8], totalBytes: Int) -> Result<String, RefusedMessage> {
        guard totalBytes <= FCMLimits.maxMessageBytes else {
            return refuse(
                .invalidArgument("Message is too big: \(totalBytes) bytes; the limit is \(FCMLimits.maxMessageBytes)")
            )
        }
        guard case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else {
            return refuse(.invalidArgument("Invalid JSON payload received: not a JSON object", field: "message"))
        }
        if let unknown = root.keys.sorted().first(where: { $0 != "message" && $0 != "validate_only" }) {
            return refuse(unknownName(unknown, at: nil))
        }
        guard case .object(let message)? = root["message"] else {
            return refuse(.invalidArgument("Request contains an invalid argument: no message", field: "message"))
        }
        if let problem = unknownField(in: message, allowed: messageFields, at: "message") { return refuse(problem) }
        guard case .string(let token)? = message["token"] else {
            return refuse(.invalidArgument("Recipient of the message is not set.", field: "message.token"))
        }
        guard (try? FCMRegistrationToken(parsing: token)) != nil else {
            return refuse(.invalidArgument("The registration token is not a valid FCM registration token"))
        }
        if let problem = checkData(message["data"], at: "message.data", reservedKeys: true) { return refuse(problem) }
        if let problem = checkNotification(message["notification"]) { return refuse(problem) }
        if let problem = checkAndroid(message["android"]) { return refuse(problem) }
        return .success(token)
    }

    /// The refusal of a message, as a `Result` failure.
    struct RefusedMessage: Error {
        var answer: MockAnswer
    }

    private static func refuse(_ answer: MockAnswer) -> Result<String, RefusedMessage> {
        .failure(RefusedMessage(answer: answer))
    }

    private static func unknownName(_ name: String, at path: String?) -> MockAnswer {
        .invalidArgument(
            "Invalid JSON payload received. Unknown name \"\(name)\"\(path.map { " at '\($0)'" } ?? ""): Cannot find field.",
            field: path.map { "\($0).\(name)" } ?? name
        )
    }

    private static func unknownField(
        in object: [String: JSONValue],
        allowed: Set<String>,
        at path: String
    )
        -> MockAnswer?
    {
        object.keys.sorted().first { !allowed.contains($0) }.map { unknownName($0, at: path) }
    }

    private static func notAString(_ value: JSONValue, at field: String) -> MockAnswer {
        .invalidArgument("Invalid value at '\(field)' (TYPE_STRING), \(value.shown)", field: field)
    }

    /// `data`: a map of string to string; FCM's reserved keys only where FCM refuses them.
    private static func checkData(_ value: JSONValue?, at path: String, reservedKeys: Bool) -> MockAnswer? {
        guard let value else { return nil }
        guard case .object(let data) = value else { return notAString(value, at: path) }
        for key in data.keys.sorted() {
            if data[key]!.string == nil { return notAString(data[key]!, at: "\(path)[\(key)].value") }
            if reservedKeys, FCMLimits.isReservedDataKey(key) {
                return .invalidArgument("Invalid data payload key: \(key) is reserved", field: "\(path)[\(key)].key")
            }
        }
        return nil
    }

    private static func checkNotification(_ value: JSONValue?) -> MockAnswer? {
        guard let value else { return nil }
        guard case .object(let notification) = value else {
            return .invalidArgument("Invalid value at 'message.notification'", field: "message.notification")
        }
        if let problem = unknownField(in: notification, allowed: notificationFields, at: "message.notification") {
            return problem
        }
        for key in notification.keys.sorted() where notification[key]!.string == nil {
            return notAString(notification[key]!, at: "message.notification.\(key)")
        }
        return nil
    }

    private static func checkAndroid(_ value: JSONValue?) -> MockAnswer? {
        guard let value else { return nil }
        guard case .object(let android) = value else {
            return .invalidArgument("Invalid value at 'message.android'", field: "message.android")
        }
        if let problem = unknownField(in: android, allowed: androidFields, at: "message.android") { return problem }
        if let priority = android["priority"], priority != .string("HIGH"), priority != .string("NORMAL") {
            return .invalidArgument(
                "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), \(priority.shown)",
                field: "message.android.priority"
            )
        }
        if let ttl = android["ttl"], !isValidTTL(ttl) {
            return .invalidArgument(
                "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \(ttl.shown)",
                field: "message.android.ttl"
            )
        }
        if let problem = checkData(android["data"], at: "message.android.data", reservedKeys: false) {
            return problem
        }
        if let notification = android["notification"] {
            guard case .object(let fields) = notification else {
                return .invalidArgument(
                    "Invalid value at 'message.android.notification'",
                    field: "message.android.notification"
                )
            }
            if let tag = fields["tag"], tag.string == nil {
                return notAString(tag, at: "message.android.notification.tag")
            }
        }
        return nil
    }

    /// A protobuf Duration in JSON (`"86400s"`, `"3.5s"`: seconds with up to nine decimals and an `s`),
    /// within 0...28 days.
    static func isValidTTL(_ value: JSONValue) -> Bool {
        guard let text = value.string, text.hasSuffix("s") else { return false }
        let parts = text.dropLast().split(separator: ".", omittingEmptySubsequences: false)
        let digits: (Substring) -> Bool = { $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        guard (1...2).contains(parts.count), !parts[0].isEmpty, digits(parts[0]),
            parts.count == 1 || ((1...9).contains(parts[1].utf8.count) && digits(parts[1])),
            let seconds = Int(parts[0])
        else { return false }
        return seconds < FCMLimits.maxTTLSeconds || (seconds == FCMLimits.maxTTLSeconds && parts.count == 1)
    }
}
