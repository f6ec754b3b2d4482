import Foundation
import RelayCore
import RelayCrypto

/// The `Topic` header of a push message (RFC 8030 §5.4): a push service keeps only the newest undelivered
/// message of a topic. At most 32 characters of the base64url alphabet, so a message id becomes a hash.
public struct Topic: Sendable, Hashable, CustomStringConvertible {
    /// The header value.
    public let value: String

    /// The longest topic, in characters (RFC 8030 §5.4).
    public static let maxLength = 32

    /// The topic of message `messageId`: the first 32 characters of base64url(SHA-256(UTF-8 of the id)),
    /// no padding (192 bits of the hash).
    public init(messageId: String) {
        value = String(Digest.sha256(Data(messageId.utf8)).base64URLEncodedString().prefix(Self.maxLength))
    }

    /// Checks a topic a push request carries.
    /// - Throws: ``WebPushError`` `.invalidTopic` when it is empty, longer than ``maxLength``, or holds a
    ///   character outside `A-Z a-z 0-9 - _`.
    public init(validating value: String) throws(WebPushError) {
        guard !value.isEmpty, value.utf8.count <= Self.maxLength,
            value.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else {
            throw WebPushError(
                .invalidTopic,
                "Topic must be 1 to \(Self.maxLength) base64url characters (A-Z a-z 0-9 - _), RFC 8030 §5.4"
            )
        }
        self.value = value
    }

    public var description: String { value }
}
