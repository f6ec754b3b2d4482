import COpenSSL
import Foundation

/// A P-256 (prime256v1) key for ES256: a private key signs, a public key verifies.
///
/// Source: RFC 7518 §3.4 (ECDSA using P-256 and SHA-256: the JWS signature is raw R||S, 64 bytes,
/// each half left-padded to 32 bytes, not DER). Apple's .p8 files are PKCS#8 PEM private keys.
/// Safe to share across threads: the EVP_PKEY is never mutated after loading (OpenSSL 3 allows concurrent
/// use of a key in separate contexts).
public final class ES256Key: @unchecked Sendable {
    package let pkey: OpaquePointer
    /// True when this key can sign (holds the private part).
    public let isPrivate: Bool

    private init(pkey: OpaquePointer, isPrivate: Bool) throws(CryptoError) {
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC else {
            EVP_PKEY_free(pkey)
            throw CryptoError(.invalidKey, "key is not an elliptic-curve key")
        }
        let group = EVPKey.groupName(pkey)
        guard EVPKey.isP256(group) else {
            EVP_PKEY_free(pkey)
            throw CryptoError(.invalidKey, "key is on curve '\(group)'; ES256 needs P-256 (prime256v1)")
        }
        self.pkey = pkey
        self.isPrivate = isPrivate
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Reads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, as in Apple's .p8, or `BEGIN EC PRIVATE KEY`).
    /// An encrypted key is refused (``EVPKey/readPrivate(pem:)``).
    /// - Throws: ``CryptoError`` `.invalidKey` when the text is not a P-256 private key, or is encrypted.
    public convenience init(privateKeyPEM pem: String) throws(CryptoError) {
        try self.init(pkey: EVPKey.readPrivate(pem: pem), isPrivate: true)
    }

    /// Reads a PEM public key (`BEGIN PUBLIC KEY`), or takes the public half of a PEM private key.
    /// - Throws: ``CryptoError`` `.invalidKey` when the text holds no P-256 key.
    public convenience init(publicKeyPEM pem: String) throws(CryptoError) {
        if pem.contains("PRIVATE KEY") {
            let key = try ES256Key(privateKeyPEM: pem)
            let publicPEM = key.publicKeyPEM
            try self.init(publicKeyPEM: publicPEM)
            return
        }
        try self.init(pkey: EVPKey.readPublic(pem: pem), isPrivate: false)
    }

    /// Makes a fresh P-256 private key (tests and `push-relay` tooling; Apple issues the real ones).
    /// - Throws: ``CryptoError`` `.operationFailed` when OpenSSL cannot generate one.
    public static func generate() throws(CryptoError) -> ES256Key {
        let pkey = try EVPKey.generate(EVP_PKEY_EC) { EVP_PKEY_CTX_set_ec_paramgen_curve_nid($0, NID_X9_62_prime256v1) }
        return try ES256Key(pkey: pkey, isPrivate: true)
    }

    /// The public key as PEM (`BEGIN PUBLIC KEY`).
    public var publicKeyPEM: String { EVPKey.publicPEM(pkey) }

    /// The private key as PKCS#8 PEM (`BEGIN PRIVATE KEY`, the .p8 form); nil for a public key.
    public var privateKeyPEM: String? { isPrivate ? EVPKey.privatePEM(pkey) : nil }

    /// Signs `message` with ECDSA P-256 / SHA-256.
    /// - Returns: the raw signature R||S, 64 bytes (RFC 7518 §3.4).
    /// - Throws: ``CryptoError`` `.operationFailed` (or `.invalidKey` for a public key).
    public func sign(_ message: some DataProtocol) throws(CryptoError) -> Data {
        guard isPrivate else { throw CryptoError(.invalidKey, "a public key cannot sign") }
        let der = try EVPKey.signSHA256(pkey, message: [UInt8](message))
        guard let raw = ECDSASignature.raw(fromDER: der) else {
            throw CryptoError(.operationFailed, "d2i_ECDSA_SIG: \(openSSLErrorText())")
        }
        return Data(raw)
    }

    /// Checks a raw R||S signature (64 bytes) over `message`. Any malformed input is simply `false`.
    public func verify(signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: [UInt8](signature)) else { return false }
        return EVPKey.verifySHA256(pkey, signature: der, message: [UInt8](message))
    }
}
