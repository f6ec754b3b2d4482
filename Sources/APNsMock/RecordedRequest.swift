import Foundation

/// One request the mock answered, as recorded in memory and in the record file.
///
/// JSON line form (record file): `{"connectionId":1,"streamId":1,"openStreams":1,"headers":[[":method","POST"],
/// ...],"body":"...","bodyEncoding":"utf8"|"base64","status":200,"reason":null,"apnsId":"...",
/// "time":1700000000.5}` with `time` in SECONDS since 1970 (fractional).
public struct RecordedRequest: Sendable, Equatable {
    /// The connection's id: 1 for the first accepted connection, counting up.
    public var connectionId: Int
    /// The HTTP/2 stream id.
    public var streamId: Int
    /// Streams open on the connection when this one was answered, itself included: what the client had in
    /// flight there, which SETTINGS_MAX_CONCURRENT_STREAMS bounds.
    public var openStreams: Int
    /// Every header in the order received, pseudo-headers included, names lowercase.
    public var headers: [(name: String, value: String)]
    /// The body bytes (at most 5121 are kept: more is 413 anyway).
    public var body: Data
    /// The status answered.
    public var status: Int
    /// The reason answered (nil for 200).
    public var reason: String?
    /// The `apns-id` answered with 200 (echoed or generated), nil otherwise.
    public var apnsId: String?
    /// When it was answered, from the configured time source.
    public var time: Date

    public init(
        connectionId: Int,
        streamId: Int,
        openStreams: Int = 1,
        headers: [(name: String, value: String)],
        body: Data,
        status: Int,
        reason: String?,
        apnsId: String?,
        time: Date
    ) {
        self.connectionId = connectionId
        self.streamId = streamId
        self.openStreams = openStreams
        self.headers = headers
        self.body = body
        self.status = status
        self.reason = reason
        self.apnsId = apnsId
        self.time = time
    }

    /// The first value of a header (name lowercase), or nil.
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// `:method`.
    public var method: String? { header(":method") }
    /// `:path`.
    public var path: String? { header(":path") }
    /// The device token from the path (`/3/device/<token>`), as sent.
    public var deviceToken: String? {
        guard let path, path.hasPrefix("/3/device/") else { return nil }
        return String(path.dropFirst("/3/device/".count))
    }
    /// The last 8 characters of the device token: the only part that may be printed or logged.
    public var deviceTokenSuffix: String? { deviceToken.map { String($0.suffix(8)) } }

    public static func == (lhs: RecordedRequest, rhs: RecordedRequest) -> Bool {
        lhs.connectionId == rhs.connectionId && lhs.streamId == rhs.streamId && lhs.openStreams == rhs.openStreams
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
            && lhs.body == rhs.body && lhs.status == rhs.status && lhs.reason == rhs.reason
            && lhs.apnsId == rhs.apnsId && lhs.time == rhs.time
    }
}

extension RecordedRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case connectionId, streamId, openStreams, headers, body, bodyEncoding, status, reason, apnsId, time
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        connectionId = try container.decode(Int.self, forKey: .connectionId)
        streamId = try container.decode(Int.self, forKey: .streamId)
        openStreams = try container.decodeIfPresent(Int.self, forKey: .openStreams) ?? 1
        headers = try container.decode([[String]].self, forKey: .headers).map { pair in
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .headers,
                    in: container,
                    debugDescription: "each header is [name, value]"
                )
            }
            return (pair[0], pair[1])
        }
        let text = try container.decode(String.self, forKey: .body)
        if try container.decodeIfPresent(String.self, forKey: .bodyEncoding) == "base64" {
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(forKey: .body, in: container, debugDescription: "not base64")
            }
            body = data
        } else {
            body = Data(text.utf8)
        }
        status = try container.decode(Int.self, forKey: .status)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        apnsId = try container.decodeIfPresent(String.self, forKey: .apnsId)
        time = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .time))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(connectionId, forKey: .connectionId)
        try container.encode(streamId, forKey: .streamId)
        try container.encode(openStreams, forKey: .openStreams)
        try container.encode(headers.map { [$0.name, $0.value] }, forKey: .headers)
        if let text = String(data: body, encoding: .utf8) {
            try container.encode(text, forKey: .body)
            try container.encode("utf8", forKey: .bodyEncoding)
        } else {
            try container.encode(body.base64EncodedString(), forKey: .body)
            try container.encode("base64", forKey: .bodyEncoding)
        }
        try container.encode(status, forKey: .status)
        try container.encode(reason, forKey: .reason)
        try container.encode(apnsId, forKey: .apnsId)
        try container.encode(time.timeIntervalSince1970, forKey: .time)
    }
}
