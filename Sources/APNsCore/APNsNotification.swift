import Foundation
import RelayCore

/// One request to APNs: the device token, the headers and the serialized payload.
///
/// Header rules: Apple, "Sending notification requests to APNs".
public struct APNsNotification: Sendable, Equatable {
    /// Where the push goes.
    public var deviceToken: DeviceToken
    /// apns-topic: the bundle id, suffixed as ``PushType/topicSuffix`` says.
    public var topic: String
    /// apns-push-type; always sent.
    public var pushType: PushType
    /// apns-priority.
    public var priority: Priority
    /// apns-expiration: when APNs stops trying, UNIX epoch SECONDS; 0 = deliver once, do not store;
    /// nil = header not sent.
    public var expiration: Int?
    /// apns-collapse-id: at most ``APNsLimits/collapseIdMaxBytes`` bytes of UTF-8.
    public var collapseId: String?
    /// apns-id: echoed by APNs; the same for every resend of one notification to one device.
    public var apnsId: UUID
    /// The JSON payload exactly as it is sent (not compressed).
    public var payload: Data

    public init(
        deviceToken: DeviceToken,
        topic: String,
        pushType: PushType = .alert,
        priority: Priority = .immediate,
        expiration: Int? = nil,
        collapseId: String? = nil,
        apnsId: UUID = UUID(),
        payload: Data
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.apnsId = apnsId
        self.payload = payload
    }

    /// The canonical lowercase form of ``apnsId`` that goes in the header (and that APNs echoes).
    public var apnsIdHeader: String { apnsId.lowercasedString }

    /// The `apns-id` header line that carries ``apnsIdHeader``, written in one string.
    public var apnsIdLine: String { apnsId.lowercasedString(after: "apns-id: ") }

    /// Checks what APNs would refuse with a 400/413, so such a request never leaves the relay: the headers
    /// (``validateHeaders()``) and the payload (``validatePayload(_:)``).
    /// - Throws: ``NotificationError`` with the reason APNs would have given.
    public func validate() throws(NotificationError) {
        try validateHeaders()
        try Self.validatePayload(payload)
    }

    /// ``validate()`` without parsing the payload: topic, push type, priority, expiration, collapse id and
    /// the payload's size (1 ... ``PushType/maxPayloadBytes`` bytes).
    /// - Throws: ``NotificationError`` with the reason APNs would have given.
    public func validateHeaders() throws(NotificationError) {
        if topic.isEmpty { throw NotificationError(reason: .missingTopic, message: "apns-topic is empty") }
        if !pushType.topicSuffix.isEmpty && !topic.hasSuffix(pushType.topicSuffix) {
            throw NotificationError(
                reason: .badTopic,
                message: "push type \(pushType.rawValue) needs an apns-topic ending in \(pushType.topicSuffix)"
            )
        }
        if payload.isEmpty { throw NotificationError(reason: .payloadEmpty, message: "payload is empty") }
        if payload.count > pushType.maxPayloadBytes {
            throw NotificationError(
                reason: .payloadTooLarge,
                message: "payload is \(payload.count) bytes; \(pushType.rawValue) allows \(pushType.maxPayloadBytes)"
            )
        }
        if let collapseId, collapseId.utf8.count > APNsLimits.collapseIdMaxBytes {
            throw NotificationError(
                reason: .badCollapseId,
                message: "apns-collapse-id is \(collapseId.utf8.count) bytes; at most \(APNsLimits.collapseIdMaxBytes)"
            )
        }
        if !pushType.allows(priority) {
            throw NotificationError(
                reason: .badPriority,
                message: "push type \(pushType.rawValue) does not allow priority \(priority.rawValue)"
            )
        }
        if let expiration, expiration < 0 {
            throw NotificationError(reason: .badExpirationDate, message: "apns-expiration is negative")
        }
    }

    /// Checks that `payload` parses (Foundation's JSONSerialization) as a JSON object, as APNs requires.
    /// - Throws: ``NotificationError`` `PayloadEmpty` when it does not.
    public static func validatePayload(_ payload: Data) throws(NotificationError) {
        guard (try? JSONSerialization.jsonObject(with: payload)) is [String: Any] else {
            throw NotificationError(reason: .payloadEmpty, message: "payload is not a JSON object")
        }
    }
}

/// A notification refused locally, before any network call, with the reason APNs would have answered.
public struct NotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: APNsReason
    public var message: String
    public init(reason: APNsReason, message: String) {
        self.reason = reason
        self.message = message
    }
    public var description: String { "\(reason): \(message)" }
}
