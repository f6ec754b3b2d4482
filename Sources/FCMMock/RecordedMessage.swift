import Foundation

/// One `messages:send` request the mock FCM answered, as recorded in memory and in the record file.
///
/// JSON line form (record file): `{"body":"{\"message\":...}","connectionId":1,"errorCode":null,
/// "name":"projects/p/messages/...","projectId":"p","status":200,"streamId":1,"time":1700000000.5,
/// "token":"..."}` with `time` in SECONDS since 1970 (fractional).
public struct RecordedMessage: Sendable, Equatable, Codable {
    /// The connection's id: 1 for the first accepted connection, counting up.
    public var connectionId: Int
    /// The HTTP/2 stream id.
    public var streamId: Int
    /// The project in the path.
    public var projectId: String
    /// `message.token` as received; nil when the body had none.
    public var token: String?
    /// The body bytes as received, as UTF-8 text (at most 4,097 bytes are kept: more is refused anyway).
    public var body: String
    /// The status answered.
    public var status: Int
    /// The errorCode answered (or `UNAUTHENTICATED`, or the google.rpc status of an error without one); nil
    /// for 200.
    public var errorCode: String?
    /// The message name answered with 200, e.g. `projects/p/messages/0:1700000000000000%...`.
    public var name: String?
    /// When it was answered, from the configured time source.
    public var time: Date

    public init(
        connectionId: Int,
        streamId: Int,
        projectId: String,
        token: String?,
        body: String,
        status: Int,
        errorCode: String?,
        name: String?,
        time: Date
    ) {
        self.connectionId = connectionId
        self.streamId = streamId
        self.projectId = projectId
        self.token = token
        self.body = body
        self.status = status
        self.errorCode = errorCode
        self.name = name
        self.time = time
    }

    /// The last 8 characters of the registration token: the only part that may be printed or logged.
    public var tokenSuffix: String? { token.map { String($0.suffix(8)) } }

    private enum CodingKeys: String, CodingKey {
        case connectionId, streamId, projectId, token, body, status, errorCode, name, time
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        connectionId = try container.decode(Int.self, forKey: .connectionId)
        streamId = try container.decode(Int.self, forKey: .streamId)
        projectId = try container.decode(String.self, forKey: .projectId)
        token = try container.decodeIfPresent(String.self, forKey: .token)
        body = try container.decode(String.self, forKey: .body)
        status = try container.decode(Int.self, forKey: .status)
        errorCode = try container.decodeIfPresent(String.self, forKey: .errorCode)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        time = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .time))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(connectionId, forKey: .connectionId)
        try container.encode(streamId, forKey: .streamId)
        try container.encode(projectId, forKey: .projectId)
        try container.encode(token, forKey: .token)
        try container.encode(body, forKey: .body)
        try container.encode(status, forKey: .status)
        try container.encode(errorCode, forKey: .errorCode)
        try container.encode(name, forKey: .name)
        try container.encode(time.timeIntervalSince1970, forKey: .time)
    }
}
