import COpenSSL
import Foundation

/// SHA-256 and HMAC-SHA256 through OpenSSL, and random bytes from its CSPRNG.
public enum Digest {
    /// SHA-256 of `data`: 32 bytes (FIPS 180-4).
    public static func sha256(_ data: some DataProtocol) -> Data {
        let bytes = [UInt8](data)
        var out = [UInt8](repeating: 0, count: 32)
        SHA256(bytes, bytes.count, &out)
        return Data(out)
    }

    /// HMAC-SHA256 of `data` under `key`: 32 bytes (RFC 2104).
    public static func hmacSHA256(key: some DataProtocol, _ data: some DataProtocol) -> Data {
        let keyBytes = [UInt8](key), bytes = [UInt8](data)
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        HMAC(EVP_sha256(), keyBytes, Int32(keyBytes.count), bytes, bytes.count, &out, &length)
        return Data(out.prefix(Int(length)))
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    /// - Throws: ``CryptoError`` `.operationFailed` when the generator is not seeded.
    public static func randomBytes(_ count: Int) throws(CryptoError) -> Data {
        var out = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&out, Int32(count)) == 1 else {
            throw CryptoError(.operationFailed, "RAND_bytes: \(openSSLErrorText())")
        }
        return Data(out)
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEqual(_ a: some DataProtocol, _ b: some DataProtocol) -> Bool {
        let x = [UInt8](a), y = [UInt8](b)
        guard x.count == y.count else { return false }
        return CRYPTO_memcmp(x, y, x.count) == 0
    }
}

extension Data {
    /// Lowercase hex, two characters a byte.
    public var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
