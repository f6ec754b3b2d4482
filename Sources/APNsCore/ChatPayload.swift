import Foundation
import RelayCore

/// The APNs payload for one Ditto chat message: `aps` plus the SDK's top-level routing keys.
///
/// `dittoChatRoomId` is always present (the SDK's `handleNotification(userInfo:)` needs it to route);
/// `dittoChatMessageId` when the message id is known (without it the app opens the room); `imageUrl` for
/// an image message whose URL the app sent, for the app's notification service extension (the payload
/// has `mutable-content: 1`) to download and attach.
public struct ChatPayload: Encodable, Sendable, Equatable {
    public var aps: APS
    public var dittoChatRoomId: String
    public var dittoChatMessageId: String?
    public var imageUrl: String?

    public init(aps: APS, dittoChatRoomId: String, dittoChatMessageId: String? = nil, imageUrl: String? = nil) {
        self.aps = aps
        self.dittoChatRoomId = dittoChatRoomId
        self.dittoChatMessageId = dittoChatMessageId
        self.imageUrl = imageUrl
    }

    /// What ends a body that had to be shortened.
    public static let ellipsis = TextFitting.ellipsis

    /// Why a payload cannot be built within the limit.
    public struct TooLarge: Error, Sendable, CustomStringConvertible {
        /// The bytes the payload needs even with the alert text cut to nothing.
        public var minimumBytes: Int
        public var limit: Int
        public var description: String {
            "payload needs \(minimumBytes) bytes without any message text; APNs allows \(limit)"
        }
    }

    /// Serializes the payload as APNs wants it: raw UTF-8 (never `\uXXXX` for non-ASCII), no `\/`,
    /// keys sorted so the same message always gives the same bytes.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, ints and optionals cannot fail.
        return try! encoder.encode(self)
    }

    /// Serializes the payload within `limit` bytes (APNs: 4096 for alerts, "Generating a remote notification"),
    /// cutting the alert body, then the title, on a Character boundary and ending the cut text with "…"
    /// (``TextFitting``).
    /// - Returns: the exact bytes to send; their count is at most `limit`.
    /// - Throws: ``TooLarge`` when even an empty body and title do not fit (the ids themselves are too long).
    public func encoded(limit: Int) throws(TooLarge) -> Data {
        let texts: [WritableKeyPath<ChatPayload, String?>] =
            aps.alert == nil ? [] : [\.aps.alert!.body, \.aps.alert!.title]
        do { return try TextFitting.fit(self, cutting: texts, limit: limit) { $0.encoded() } } catch {
            throw TooLarge(minimumBytes: error.minimumBytes, limit: limit)
        }
    }
}
