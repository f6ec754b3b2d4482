import Foundation

/// The relay's answer to a forwarded message: 202 when it made a notification, 200 when it had already
/// accepted the same message (the first answer's id). For an app whose pushes come from its Ditto change
/// stream, the answer is 202 with no notification id, no devices and ``Source-swift.struct/ditto``.
public struct MessageReceipt: Decodable, Sendable, Equatable {
    /// Who makes the push for the message.
    public struct Source: RawRepresentable, Hashable, Sendable {
        /// The relay made a notification from this call.
        public static let relay = Source(rawValue: "relay")
        /// The app's Ditto change stream makes the push; this call stored and sent nothing.
        public static let ditto = Source(rawValue: "ditto")

        /// The relay's text (`ditto`); ``relay`` when the answer names none.
        public var rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// The notification's id (lowercase UUID), for `GET /v1/notifications/{notificationId}`; none when
    /// ``source`` is ``Source-swift.struct/ditto``.
    public var notificationId: String?
    /// How many devices the relay is sending the notification to (the sender's own are left out); 0 when
    /// ``source`` is ``Source-swift.struct/ditto``.
    public var devices: Int
    /// Who makes the push: the relay from this call, or the app's Ditto stream.
    public var source: Source

    public init(notificationId: String?, devices: Int, source: Source = .relay) {
        self.notificationId = notificationId
        self.devices = devices
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case notificationId, devices, source
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        notificationId = try container.decodeIfPresent(String.self, forKey: .notificationId)
        devices = try container.decode(Int.self, forKey: .devices)
        source = try container.decodeIfPresent(String.self, forKey: .source).map(Source.init(rawValue:)) ?? .relay
    }
}
