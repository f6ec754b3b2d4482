import Foundation
import RelayCrypto

/// Web Push message encryption (RFC 8291) in the `aes128gcm` content coding (RFC 8188), one record: what the
/// relay posts as a push message's body, and what the mock push service opens again.
///
/// Keys (RFC 8291 §3.3, §3.4): `ecdh_secret` = ECDH(sender private, `p256dh`);
/// IKM = HKDF(salt: `auth`, ikm: `ecdh_secret`, info: "WebPush: info\0" ‖ ua_public ‖ as_public, 32);
/// CEK = HKDF(salt, IKM, "Content-Encoding: aes128gcm\0", 16); NONCE = HKDF(salt, IKM,
/// "Content-Encoding: nonce\0", 12). The record is AES-128-GCM of plaintext ‖ 0x02 ‖ zero padding.
public enum MessageEncryption {
    /// The body size every push service must take (RFC 8030 §7.2), in bytes.
    public static let maxBodySize = 4096
    /// The record size written in the header: one record of a 4,096-byte body always fits (RFC 8291 §4
    /// asks `rs` to exceed the record; its example uses 4096 too).
    public static let recordSize: UInt32 = 4096
    /// The most plaintext (with padding) one 4,096-byte body holds: 4,096 − 86 (header) − 16 (tag) − 1
    /// (delimiter) = 3,993 bytes (RFC 8291 §4).
    public static let maxPlaintextSize = maxBodySize - ContentCodingHeader.size - AES128GCM.tagSize - 1

    /// Encrypts `plaintext` for a subscription.
    /// - Parameters:
    ///   - padding: zero bytes added after the delimiter, to hide the length (RFC 8188 §2); plaintext and
    ///     padding together fit ``maxPlaintextSize``.
    ///   - salt: the header's 16-byte salt; a fresh random one when nil (tests give RFC 8291's).
    ///   - senderKey: the application server's key pair for this message; a fresh one when nil. Never reuse
    ///     one salt and key pair for two messages: the same key and nonce would encrypt both.
    /// - Returns: the body: header (86 bytes) then the record.
    /// - Throws: ``WebPushError`` `.payloadTooLarge` when plaintext and padding exceed ``maxPlaintextSize``,
    ///   `.cryptoFailed` when OpenSSL fails.
    public static func encrypt(
        _ plaintext: some DataProtocol,
        to keys: SubscriptionKeys,
        padding: Int = 0,
        salt givenSalt: Data? = nil,
        senderKey givenKey: KeyAgreementKey? = nil
    ) throws(WebPushError) -> Data {
        precondition(padding >= 0, "padding is a count of bytes")
        precondition(givenSalt.map { $0.count == ContentCodingHeader.saltSize } ?? true, "the salt is 16 bytes")
        guard plaintext.count + padding <= maxPlaintextSize else {
            throw WebPushError(
                .payloadTooLarge,
                "the message is \(plaintext.count) bytes (with \(padding) of padding); one Web Push record holds"
                    + " at most \(maxPlaintextSize)"
            )
        }
        let senderKey: KeyAgreementKey
        if let givenKey { senderKey = givenKey } else { senderKey = try KeyAgreementKey.generate() }
        let salt: Data
        if let givenSalt { salt = givenSalt } else { salt = try random(ContentCodingHeader.saltSize) }
        let secret = try senderKey.sharedSecret(with: keys.p256dh)
        let (key, nonce) = try contentKey(
            secret: secret,
            auth: keys.auth,
            userAgentKey: keys.p256dh,
            serverKey: senderKey.publicKey,
            salt: salt
        )
        var record = [UInt8](plaintext)
        record.append(0x02)  // the last (and only) record's delimiter, RFC 8188 §2
        record.append(contentsOf: repeatElement(0, count: padding))
        let header = ContentCodingHeader(salt: salt, recordSize: recordSize, keyId: senderKey.publicKey)
        return header.bytes + Data(try AES128GCM.seal(record, key: key, nonce: nonce))
    }

    /// Opens a body with the subscription's private key and auth secret, as a user agent does: checks the
    /// header, that it is one record, the tag, and the delimiter and padding.
    /// - Returns: the plaintext, padding removed.
    /// - Throws: ``WebPushError`` `.invalidBody` for a malformed header, more than one record, a record not
    ///   ending in 0x02 and zeros; `.invalidKey` when the key id is not a P-256 point; `.decryptionFailed`
    ///   when the record does not authenticate under these keys.
    public static func decrypt(
        _ body: some DataProtocol,
        privateKey: KeyAgreementKey,
        auth: some DataProtocol
    ) throws(WebPushError) -> Data {
        let bytes = [UInt8](body)
        let header = try ContentCodingHeader(parsing: bytes)
        let record = Array(bytes[ContentCodingHeader.size...])
        guard record.count > AES128GCM.tagSize else {
            throw WebPushError(.invalidBody, "the record is \(record.count) bytes, no longer than its 16-byte tag")
        }
        guard record.count <= header.recordSize else {
            throw WebPushError(
                .invalidBody,
                "the body holds more than one record (\(record.count) bytes, record size \(header.recordSize));"
                    + " Web Push sends one"
            )
        }
        let secret = try privateKey.sharedSecret(with: header.keyId)
        let (key, nonce) = try contentKey(
            secret: secret,
            auth: Data(auth),
            userAgentKey: privateKey.publicKey,
            serverKey: header.keyId,
            salt: header.salt
        )
        guard let padded = AES128GCM.open(record, key: key, nonce: nonce) else {
            throw WebPushError(.decryptionFailed, "the record does not decrypt with this subscription's keys")
        }
        guard let end = padded.lastIndex(where: { $0 != 0 }) else {
            throw WebPushError(.invalidBody, "the record holds no delimiter, only zeros")
        }
        guard padded[end] == 0x02 else {
            throw WebPushError(
                .invalidBody,
                "the record's delimiter is 0x\(String(padded[end], radix: 16)); the last record's must be 0x02"
            )
        }
        return Data(padded[..<end])
    }

    /// The content encryption key (16 bytes) and nonce (12 bytes) of RFC 8291 §3.4 (the sequence number of
    /// the one record is 0, so the nonce is used as derived).
    static func contentKey(
        secret: Data,
        auth: Data,
        userAgentKey: Data,
        serverKey: Data,
        salt: Data
    ) throws(WebPushError) -> (key: [UInt8], nonce: [UInt8]) {
        let keyInfo = Data("WebPush: info\0".utf8) + userAgentKey + serverKey
        let ikm = try HKDF.sha256(ikm: secret, salt: auth, info: keyInfo, length: 32)
        let key = try HKDF.sha256(
            ikm: ikm,
            salt: salt,
            info: Data("Content-Encoding: aes128gcm\0".utf8),
            length: AES128GCM.keySize
        )
        let nonce = try HKDF.sha256(
            ikm: ikm,
            salt: salt,
            info: Data("Content-Encoding: nonce\0".utf8),
            length: AES128GCM.nonceSize
        )
        return ([UInt8](key), [UInt8](nonce))
    }

    private static func random(_ count: Int) throws(WebPushError) -> Data {
        do { return try Digest.randomBytes(count) } catch {
            throw WebPushError(.cryptoFailed, "random salt: \(error.message)")
        }
    }
}
