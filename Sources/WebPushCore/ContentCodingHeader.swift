import Foundation

/// The header of an `aes128gcm` body (RFC 8188 §2.1) as Web Push uses it (RFC 8291 §4):
/// `salt(16) | rs(4, big-endian) | idlen(1) | keyid(idlen)`, the key id being the application server's
/// uncompressed P-256 public key (65 bytes), so the header is 86 bytes.
public struct ContentCodingHeader: Sendable, Equatable {
    /// The salt's size in bytes.
    public static let saltSize = 16
    /// The header's size in bytes with a 65-byte key id.
    public static let size = saltSize + 4 + 1 + 65
    /// The smallest record size RFC 8188 §2.1 allows: a tag (16 bytes), a delimiter and one more byte.
    public static let minimumRecordSize: UInt32 = 18

    /// 16 random bytes, new for each message.
    public var salt: Data
    /// The record size `rs` in bytes: no record (ciphertext and tag) is longer.
    public var recordSize: UInt32
    /// The application server's public key, an uncompressed P-256 point (65 bytes).
    public var keyId: Data

    public init(salt: Data, recordSize: UInt32, keyId: Data) {
        precondition(salt.count == Self.saltSize && keyId.count <= 255, "a 16-byte salt, a key id of 255 bytes or less")
        self.salt = salt
        self.recordSize = recordSize
        self.keyId = keyId
    }

    /// The header's bytes.
    public var bytes: Data {
        var out = salt
        withUnsafeBytes(of: recordSize.bigEndian) { out.append(contentsOf: $0) }
        out.append(UInt8(keyId.count))
        out.append(keyId)
        return out
    }

    /// Reads the header at the start of `body` as Web Push requires it.
    /// - Throws: ``WebPushError`` `.invalidBody` when `body` is shorter than ``size``, the key id is not 65
    ///   bytes, or `rs` is below ``minimumRecordSize``.
    public init(parsing body: some DataProtocol) throws(WebPushError) {
        let bytes = [UInt8](body.prefix(Self.size))
        guard bytes.count == Self.size else {
            throw WebPushError(.invalidBody, "the body is shorter than the \(Self.size)-byte aes128gcm header")
        }
        let recordSize = bytes[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard bytes[20] == 65 else {
            throw WebPushError(
                .invalidBody,
                "the header's key id is \(bytes[20]) bytes; Web Push puts the 65-byte sender key there"
            )
        }
        guard recordSize >= Self.minimumRecordSize else {
            throw WebPushError(.invalidBody, "the record size \(recordSize) is below \(Self.minimumRecordSize)")
        }
        self.init(salt: Data(bytes[0..<16]), recordSize: recordSize, keyId: Data(bytes[21..<Self.size]))
    }
}
