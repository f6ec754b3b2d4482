import Foundation
import RelayCore

/// One push the mock Web Push service answered, as recorded in memory and in the record file.
///
/// JSON line form (record file): `{"connectionId":1,"endpointId":"…","location":"http://…/message/…",
/// "payload":{"title":…},"reason":null,"shape":"plain","status":201,"streamId":1,"time":1700000000.5,
/// "topic":"…","ttl":86400,"urgency":"high","vapidAudience":"http://127.0.0.1:8443","vapidKey":"BA…",
/// "vapidSubject":"mailto:ops@example.com"}` with `time` in SECONDS since 1970 (fractional). It never holds
/// the full endpoint, the subscription's keys or the encrypted body.
public struct RecordedPush: Sendable, Equatable, Codable {
    /// The connection's id: 1 for the first accepted connection, counting up.
    public var connectionId: Int
    /// The HTTP/2 stream id.
    public var streamId: Int
    /// The endpoint id in the path (`/push/<id>`).
    public var endpointId: String
    /// The status answered.
    public var status: Int
    /// Why the push was refused or what the script answered (the error body's `message`); nil for 201.
    public var reason: String?
    /// `TTL` in SECONDS, when it was a whole number.
    public var ttl: Int?
    /// `Urgency` as sent.
    public var urgency: String?
    /// `Topic` as sent.
    public var topic: String?
    /// The VAPID JWT's `sub`, when the JWT verified.
    public var vapidSubject: String?
    /// The VAPID JWT's `aud`, when the JWT verified.
    public var vapidAudience: String?
    /// The VAPID `k` as sent (base64url public key), when the header parsed.
    public var vapidKey: String?
    /// The decrypted message, when it decrypted and is JSON of a known shape.
    public var payload: JSONValue?
    /// `plain` (the relay's payload) or `declarative` (Declarative Web Push), with ``payload``.
    public var shape: String?
    /// The `Location` answered with 201: the push message resource (`<base>/message/<uuid>`, RFC 8030 §5).
    public var location: String?
    /// When it was answered, from the configured time source.
    public var time: Date

    public init(
        connectionId: Int,
        streamId: Int,
        endpointId: String,
        status: Int,
        reason: String? = nil,
        ttl: Int? = nil,
        urgency: String? = nil,
        topic: String? = nil,
        vapidSubject: String? = nil,
        vapidAudience: String? = nil,
        vapidKey: String? = nil,
        payload: JSONValue? = nil,
        shape: String? = nil,
        location: String? = nil,
        time: Date
    ) {
        self.connectionId = connectionId
        self.streamId = streamId
        self.endpointId = endpointId
        self.status = status
        self.reason = reason
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
        self.vapidSubject = vapidSubject
        self.vapidAudience = vapidAudience
        self.vapidKey = vapidKey
        self.payload = payload
        self.shape = shape
        self.location = location
        self.time = time
    }

    /// The last 6 characters of the endpoint id: what a log line shows.
    public var endpointSuffix: String { String(endpointId.suffix(6)) }

    /// ``payload`` as compact JSON text (keys sorted), for a log line; nil without a payload.
    public var payloadText: String? {
        guard let payload else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(EncodedJSON(value: payload))).map { String(decoding: $0, as: UTF8.self) }
    }

    private enum CodingKeys: String, CodingKey {
        case connectionId, streamId, endpointId, status, reason, ttl, urgency, topic, vapidSubject, vapidAudience
        case vapidKey, payload, shape, location, time
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        connectionId = try container.decode(Int.self, forKey: .connectionId)
        streamId = try container.decode(Int.self, forKey: .streamId)
        endpointId = try container.decode(String.self, forKey: .endpointId)
        status = try container.decode(Int.self, forKey: .status)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        ttl = try container.decodeIfPresent(Int.self, forKey: .ttl)
        urgency = try container.decodeIfPresent(String.self, forKey: .urgency)
        topic = try container.decodeIfPresent(String.self, forKey: .topic)
        vapidSubject = try container.decodeIfPresent(String.self, forKey: .vapidSubject)
        vapidAudience = try container.decodeIfPresent(String.self, forKey: .vapidAudience)
        vapidKey = try container.decodeIfPresent(String.self, forKey: .vapidKey)
        payload = try container.decodeIfPresent(JSONValue.self, forKey: .payload)
        shape = try container.decodeIfPresent(String.self, forKey: .shape)
        location = try container.decodeIfPresent(String.self, forKey: .location)
        time = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .time))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(connectionId, forKey: .connectionId)
        try container.encode(streamId, forKey: .streamId)
        try container.encode(endpointId, forKey: .endpointId)
        try container.encode(status, forKey: .status)
        try container.encode(reason, forKey: .reason)
        try container.encode(ttl, forKey: .ttl)
        try container.encode(urgency, forKey: .urgency)
        try container.encode(topic, forKey: .topic)
        try container.encode(vapidSubject, forKey: .vapidSubject)
        try container.encode(vapidAudience, forKey: .vapidAudience)
        try container.encode(vapidKey, forKey: .vapidKey)
        try container.encode(payload.map(EncodedJSON.init), forKey: .payload)
        try container.encode(shape, forKey: .shape)
        try container.encode(location, forKey: .location)
        try container.encode(time.timeIntervalSince1970, forKey: .time)
    }
}

/// Writes a ``JSONValue`` back as JSON (RelayCore's type only decodes).
private struct EncodedJSON: Encodable {
    let value: JSONValue

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if number == number.rounded(), abs(number) < 1e15 {
                try container.encode(Int64(number))
            } else {
                try container.encode(number)
            }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(EncodedJSON(value: item)) }
        case .object(let members):
            var container = encoder.singleValueContainer()
            try container.encode(members.mapValues(EncodedJSON.init))
        }
    }
}
