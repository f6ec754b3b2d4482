import APNsCore
import Foundation
import RelayCore

/// Checks a complete request the way APNs does and names the first problem with Apple's status and reason.
///
/// Order (Apple, "Sending notification requests to APNs" and "Handling notification responses from APNs"):
/// 1. `:method` not POST -> 405 MethodNotAllowed; `:path` not `/3/device/...` -> 404 BadPath;
///    empty token -> 400 MissingDeviceToken; token not even-length hex of 8...256 bytes -> 400 BadDeviceToken;
///    a non-pseudo header twice -> 400 DuplicateHeaders.
/// 2. Provider token (see ``ProviderTokenCheck``), unless authentication is disabled or the connection has a
///    verified client certificate.
/// 3. `apns-id` not a canonical UUID (8-4-4-4-12 hex, either case) -> 400 BadMessageId; `apns-expiration`
///    not an integer -> 400 BadExpirationDate; `apns-priority` not 10/5/1 -> 400 BadPriority (absent means
///    10); `apns-push-type` unknown -> 400 InvalidPushType (absent means alert); `background` at priority
///    10 -> 400 BadPriority.
/// 4. Topic: absent -> 400 MissingTopic (certificate connections may omit it). A push type whose topic needs
///    a suffix (`.voip`, `.complication`, ...; ``PushType/topicSuffix``) and a topic without it -> 400
///    BadTopic. With `allowedTopics` configured, the topic minus that suffix not among them -> 400
///    TopicDisallowed.
/// 5. `apns-collapse-id` over 64 bytes -> 400 BadCollapseId.
/// 6. Body: empty -> 400 PayloadEmpty; over 4096 bytes (5120 for voip) -> 413 PayloadTooLarge; not a JSON
///    object -> 400 PayloadEmpty (Apple documents no other reason for it); then its `aps` against the
///    push type and priority (``APNsCore/PushType/payloadRefusal(priority:aps:)``): a background push
///    with alert, sound or badge -> 400 InvalidPushType; priority 10 with `content-available` and no
///    alert, sound or badge -> 400 BadPriority.
struct RequestValidator {
    /// An error answer: the status and Apple's reason.
    struct Failure: Error, Equatable {
        var status: Int
        var reason: APNsReason
    }

    static let maxBufferedBody = PushType.voip.maxPayloadBytes + 1

    /// Stage 1: method, path, device token, duplicate headers. Returns the device token (lowercase hex).
    static func checkRoute(_ headers: [(name: String, value: String)]) -> Result<String, Failure> {
        var method: String?
        var path: String?
        for (name, value) in headers where name.utf8.first == UInt8(ascii: ":") {
            if name == ":method" { method = value } else if name == ":path" { path = value }
        }
        guard method == "POST" else { return .failure(Failure(status: 405, reason: .methodNotAllowed)) }
        guard let path, path.hasPrefix(APNsLimits.devicePathPrefix) else {
            return .failure(Failure(status: 404, reason: .badPath))
        }
        let raw = path.dropFirst(APNsLimits.devicePathPrefix.count)
        guard !raw.isEmpty else { return .failure(Failure(status: 400, reason: .missingDeviceToken)) }
        guard let token = deviceToken(raw) else { return .failure(Failure(status: 400, reason: .badDeviceToken)) }
        for index in headers.indices where headers[index].name.utf8.first != UInt8(ascii: ":") {
            let name = headers[index].name
            if headers[(index + 1)...].contains(where: { $0.name == name }) {
                return .failure(Failure(status: 400, reason: .duplicateHeaders))
            }
        }
        return .success(token)
    }

    /// The token as lowercase hex when it is even-length hex of ``DeviceToken/byteLengthRange`` bytes, as
    /// `DeviceToken(parsing:)` requires, but without its tolerance for whitespace and wrapping (a path has
    /// none) and without allocating for the common all-lowercase token.
    static func deviceToken(_ raw: Substring) -> String? {
        let utf8 = raw.utf8
        guard utf8.count % 2 == 0, DeviceToken.byteLengthRange.contains(utf8.count / 2) else { return nil }
        guard utf8.allSatisfy(\.isASCIIHexDigit) else { return nil }
        return utf8.allSatisfy(\.isLowercaseASCIIHexDigit) ? String(raw) : raw.lowercased()
    }

    /// What stages 3-5 read from the headers for stage 6.
    struct Kind: Equatable {
        var pushType: PushType
        /// The priority sent, or 10 (Apple's default) when none was.
        var priority: Priority
    }

    /// Stages 3-5: APNs headers and topic. Returns the push type and priority.
    static func checkHeaders(
        _ headers: [(name: String, value: String)],
        topicRequired: Bool,
        allowedTopics: Set<String>?
    ) -> Result<Kind, Failure> {
        func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        if let id = value("apns-id"), !UUID.isCanonical(id) {
            return .failure(Failure(status: 400, reason: .badMessageId))
        }
        if let expiration = value("apns-expiration"), Int64(expiration) == nil {
            return .failure(Failure(status: 400, reason: .badExpirationDate))
        }
        var priority = Priority.immediate
        if let raw = value("apns-priority") {
            guard let number = Int(raw), let parsed = Priority(rawValue: number) else {
                return .failure(Failure(status: 400, reason: .badPriority))
            }
            priority = parsed
        }
        var pushType = PushType.alert
        if let raw = value("apns-push-type") {
            guard let parsed = PushType(rawValue: raw) else {
                return .failure(Failure(status: 400, reason: .invalidPushType))
            }
            pushType = parsed
        }
        if !pushType.allows(priority) {
            return .failure(Failure(status: 400, reason: .badPriority))
        }
        if let topic = value("apns-topic") {
            let suffix = pushType.topicSuffix
            guard topic.hasSuffix(suffix), topic.utf8.count > suffix.utf8.count else {
                return .failure(Failure(status: 400, reason: .badTopic))
            }
            if let allowedTopics, !allowedTopics.contains(String(topic.dropLast(suffix.count))) {
                return .failure(Failure(status: 400, reason: .topicDisallowed))
            }
        } else if topicRequired {
            return .failure(Failure(status: 400, reason: .missingTopic))
        }
        if let collapseId = value("apns-collapse-id"), collapseId.utf8.count > APNsLimits.collapseIdMaxBytes {
            return .failure(Failure(status: 400, reason: .badCollapseId))
        }
        return .success(Kind(pushType: pushType, priority: priority))
    }

    /// Stage 6: the body. `totalBytes` counts every byte received, `body` holds at most ``maxBufferedBody``.
    static func checkBody(_ body: [UInt8], totalBytes: Int, kind: Kind) -> Failure? {
        if totalBytes == 0 { return Failure(status: 400, reason: .payloadEmpty) }
        if totalBytes > kind.pushType.maxPayloadBytes { return Failure(status: 413, reason: .payloadTooLarge) }
        let object = body.withUnsafeBufferPointer { buffer in
            try? JSONSerialization.jsonObject(with: Data(buffer), options: [])
        }
        guard let payload = object as? [String: Any] else { return Failure(status: 400, reason: .payloadEmpty) }
        if let reason = kind.pushType.payloadRefusal(priority: kind.priority, aps: payload["aps"] as? [String: Any]) {
            return Failure(status: 400, reason: reason)
        }
        return nil
    }
}
