import Foundation
import RelayCore

/// The two shapes of decrypted push message the mock takes, checked strictly:
///
/// - the relay's plain payload: `{"title": string, "body": string, "dittoChatRoomId": string,
///   "dittoChatMessageId"?: string}` and other keys with string values, at most ``maxPlainKeys`` keys;
/// - Declarative Web Push (WebKit's explainer "Declarative Web Push", Safari 18.4+): `{"web_push": 8030,
///   "notification": {"title": string, "navigate": absolute http(s) URL, "body"?: string, "data"?: object,
///   and the Notifications API's other options}, "app_badge"?: integer >= 0, "mutable"?: bool}`.
///
/// A message with a `web_push` key is read as declarative, any other as plain.
enum PayloadShape {
    /// The most keys of a plain payload: the four named and room for a few the relay may add.
    static let maxPlainKeys = 16

    /// Which shape a valid message has.
    enum Kind: String, Sendable { case plain, declarative }

    /// The message as JSON, or why it is refused (a sentence for the error body).
    static func check(_ plaintext: Data) -> Result<(Kind, JSONValue), Refusal> {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: plaintext),
            case .object(let object) = value
        else { return .failure(Refusal("the decrypted message is not a JSON object")) }
        if object["web_push"] != nil {
            return checkDeclarative(object).map { (.declarative, value) }
        }
        return checkPlain(object).map { (.plain, value) }
    }

    /// Why a message is refused.
    struct Refusal: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    private static func checkPlain(_ object: [String: JSONValue]) -> Result<Void, Refusal> {
        for key in ["title", "body", "dittoChatRoomId"] where object[key]?.string == nil {
            return .failure(
                Refusal("the message needs \"\(key)\" as a string (plain shape: title, body, dittoChatRoomId)")
            )
        }
        if let roomId = object["dittoChatRoomId"]?.string, roomId.isEmpty {
            return .failure(Refusal("\"dittoChatRoomId\" is empty"))
        }
        guard object.count <= maxPlainKeys else {
            return .failure(
                Refusal("the message has \(object.count) keys; a plain payload has at most \(maxPlainKeys)")
            )
        }
        if let key = object.keys.sorted().first(where: { object[$0]?.string == nil }) {
            return .failure(Refusal("\"\(key)\" must be a string (every value of a plain payload is)"))
        }
        return .success(())
    }

    private static let declarativeKeys: Set<String> = ["web_push", "notification", "app_badge", "mutable"]
    private static let stringOptions: Set<String> = [
        "title", "body", "navigate", "lang", "dir", "tag", "image", "icon", "badge",
    ]
    private static let boolOptions: Set<String> = ["renotify", "silent", "requireInteraction"]
    private static let otherOptions: Set<String> = ["data", "timestamp", "vibrate", "actions"]

    private static func checkDeclarative(_ object: [String: JSONValue]) -> Result<Void, Refusal> {
        guard object["web_push"] == .number(8030) else {
            return .failure(Refusal("\"web_push\" must be the number 8030 (Declarative Web Push)"))
        }
        if let key = object.keys.sorted().first(where: { !declarativeKeys.contains($0) }) {
            return .failure(
                Refusal("\"\(key)\" is not a Declarative Web Push key (web_push, notification, app_badge, mutable)")
            )
        }
        if let badge = object["app_badge"] {
            guard let count = badge.number, count >= 0, count == count.rounded() else {
                return .failure(Refusal("\"app_badge\" must be a whole number >= 0"))
            }
        }
        if let mutable = object["mutable"], !mutable.isBool {
            return .failure(Refusal("\"mutable\" must be true or false"))
        }
        guard case .object(let notification) = object["notification"] else {
            return .failure(Refusal("\"notification\" must be an object (Declarative Web Push)"))
        }
        guard let title = notification["title"]?.string, !title.isEmpty else {
            return .failure(Refusal("\"notification.title\" must be a non-empty string"))
        }
        guard let navigate = notification["navigate"]?.string, isAbsoluteWebURL(navigate) else {
            return .failure(Refusal("\"notification.navigate\" must be an absolute https or http URL"))
        }
        for (key, value) in notification.sorted(by: { $0.key < $1.key }) {
            if stringOptions.contains(key) {
                guard value.string != nil else { return .failure(Refusal("\"notification.\(key)\" must be a string")) }
            } else if boolOptions.contains(key) {
                guard value.isBool else {
                    return .failure(Refusal("\"notification.\(key)\" must be true or false"))
                }
            } else if key == "data" {
                guard case .object = value else { return .failure(Refusal("\"notification.data\" must be an object")) }
            } else if !otherOptions.contains(key) {
                return .failure(Refusal("\"notification.\(key)\" is not a notification option"))
            }
        }
        return .success(())
    }

    private static func isAbsoluteWebURL(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { return false }
        return true
    }
}

extension JSONValue {
    fileprivate var isBool: Bool { if case .bool = self { true } else { false } }
}
