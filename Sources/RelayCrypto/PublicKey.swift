import COpenSSL
import Foundation
import RelayCore

/// A public key that checks JWS signatures: an EC P-256 key for ES256 or an RSA key of at least
/// ``minimumRSABits`` for RS256 (RFC 7518 §3.3, §3.4). Each key checks its own algorithm only, so a token's
/// `alg` can never turn it into something else (an HMAC secret, say).
///
/// Safe to share across threads: the EVP_PKEY is never changed after loading (OpenSSL 3 allows concurrent
/// use of a key in separate contexts).
public final class PublicKey: @unchecked Sendable {
    package let pkey: OpaquePointer
    /// The one algorithm this key checks.
    public let algorithm: JWSAlgorithm
    /// The key's `kid` (from its JWK); nil for a key read from PEM.
    public let keyId: String?

    /// RSA keys shorter than this many bits are refused (RFC 7518 §3.3 asks for 2048 or more).
    public static let minimumRSABits = 2048

    /// Takes ownership of `pkey` (freed here when refused).
    /// - Throws: ``CryptoError`` `.invalidKey` for a key that is not P-256 EC or RSA of at least
    ///   ``minimumRSABits``, or that fails OpenSSL's public-key check (a point off the curve, an even
    ///   modulus).
    init(adopting pkey: OpaquePointer, keyId: String?) throws(CryptoError) {
        let algorithm: JWSAlgorithm
        do throws(CryptoError) {
            algorithm = try Self.algorithm(of: pkey)
            try Self.check(pkey)
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
        self.pkey = pkey
        self.algorithm = algorithm
        self.keyId = keyId
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Reads a PEM public key (`BEGIN PUBLIC KEY`, SubjectPublicKeyInfo).
    /// - Throws: ``CryptoError`` `.invalidKey` when the text holds no such key, or one ``init(adopting:keyId:)``
    ///   refuses.
    public convenience init(pem: String, keyId: String? = nil) throws(CryptoError) {
        try self.init(adopting: EVPKey.readPublic(pem: pem), keyId: keyId)
    }

    /// Reads a P-256 public key from its uncompressed point: 0x04, x, y (65 bytes, SEC 1 §2.3.3), the form
    /// of a VAPID key's `k` and a Web Push subscription's `p256dh`.
    /// - Throws: ``CryptoError`` `.invalidKey` for another length or form, or a point not on the curve.
    public convenience init(p256Point point: some DataProtocol, keyId: String? = nil) throws(CryptoError) {
        guard point.count == EVPKey.p256PointSize, point.first == 0x04 else {
            throw CryptoError(.invalidKey, "a P-256 public key is an uncompressed point: 0x04, x, y (65 bytes)")
        }
        try self.init(adopting: EVPKey.p256PublicKey(point: [UInt8](point)), keyId: keyId)
    }

    /// Checks a JWS signature over `message` with this key's algorithm: raw R||S (64 bytes) for ES256,
    /// PKCS#1 v1.5 with SHA-256 for RS256. Any malformed signature is simply `false`.
    public func verify(signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        var bytes = [UInt8](signature)
        if algorithm == .es256 {
            guard let der = ECDSASignature.der(fromRaw: bytes) else { return false }
            bytes = der
        }
        return EVPKey.verifySHA256(pkey, signature: bytes, message: [UInt8](message))
    }

    /// The key as PEM (`BEGIN PUBLIC KEY`).
    public var pem: String { EVPKey.publicPEM(pkey) }

    /// A short description for messages: `EC P-256` or `RSA 2048 bits`.
    public var kind: String {
        algorithm == .es256 ? "EC P-256" : "RSA \(EVP_PKEY_get_bits(pkey)) bits"
    }

    private static func algorithm(of pkey: OpaquePointer) throws(CryptoError) -> JWSAlgorithm {
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_EC:
            let group = EVPKey.groupName(pkey)
            guard EVPKey.isP256(group) else {
                throw CryptoError(.invalidKey, "an EC key on curve '\(group)'; ES256 needs P-256 (prime256v1)")
            }
            return .es256
        case EVP_PKEY_RSA:
            let bits = Int(EVP_PKEY_get_bits(pkey))
            guard bits >= minimumRSABits else {
                throw CryptoError(.invalidKey, "an RSA key of \(bits) bits; at least \(minimumRSABits) are needed")
            }
            return .rs256
        default:
            throw CryptoError(.invalidKey, "neither an EC P-256 key (ES256) nor an RSA key (RS256)")
        }
    }

    /// OpenSSL's public-key check (`EVP_PKEY_public_check`).
    private static func check(_ pkey: OpaquePointer) throws(CryptoError) {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw CryptoError(.operationFailed, "EVP_PKEY_CTX_new_from_pkey: \(openSSLErrorText())")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_public_check(ctx) == 1 else {
            throw CryptoError(.invalidKey, "not a valid public key: \(openSSLErrorText())")
        }
    }
}
