import COpenSSL
import Foundation

/// An RSA private key for RS256: signs JWS with RSASSA-PKCS1-v1_5 and SHA-256 (RFC 7518 §3.3), as a Google
/// service account signs the OAuth 2.0 assertion it trades for an access token (Google, "Using OAuth 2.0 for
/// Server to Server Applications"). Its ``publicKey`` checks those signatures.
///
/// RFC 7518 §3.3 requires at least 2048 bits; smaller keys are refused. Load the PEM once: parsing an RSA
/// key costs far more than a signature. Safe to share across threads: the EVP_PKEY is never mutated after
/// loading (OpenSSL 3 allows concurrent use of a key in separate contexts).
public final class RS256Key: @unchecked Sendable {
    let pkey: OpaquePointer
    /// The modulus size in bits, e.g. 2048.
    public let bits: Int
    /// The public half, which verifies this key's signatures (RS256).
    public let publicKey: PublicKey

    /// The smallest modulus accepted, in bits (RFC 7518 §3.3).
    public static let minimumBits = PublicKey.minimumRSABits

    /// Takes ownership of `pkey` (freed here when refused).
    private init(pkey: OpaquePointer) throws(CryptoError) {
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_RSA else {
            EVP_PKEY_free(pkey)
            throw CryptoError(.invalidKey, "key is not an RSA key; RS256 needs one")
        }
        let bits = Int(EVP_PKEY_get_bits(pkey))
        guard bits >= Self.minimumBits else {
            EVP_PKEY_free(pkey)
            throw CryptoError(.invalidKey, "RSA key has \(bits) bits; RS256 needs at least \(Self.minimumBits)")
        }
        do {
            publicKey = try PublicKey(pem: EVPKey.publicPEM(pkey))
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
        self.pkey = pkey
        self.bits = bits
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Reads a PEM private key: PKCS#8 `BEGIN PRIVATE KEY` (a service account's `private_key`) or
    /// `BEGIN RSA PRIVATE KEY`. An encrypted key is refused (``EVPKey/readPrivate(pem:)``).
    /// - Throws: ``CryptoError`` `.invalidKey` when the text is not an RSA private key of 2048 bits or more.
    public convenience init(privateKeyPEM pem: String) throws(CryptoError) {
        try self.init(pkey: EVPKey.readPrivate(pem: pem))
    }

    /// Makes a fresh RSA private key (tests and mock service accounts; Google issues the real ones).
    /// - Parameter bits: the modulus size, at least ``minimumBits``.
    /// - Throws: ``CryptoError`` `.operationFailed` when OpenSSL cannot generate one, `.invalidKey` for too
    ///   few bits.
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RS256Key {
        guard bits >= minimumBits else {
            throw CryptoError(.invalidKey, "RSA key of \(bits) bits; RS256 needs at least \(minimumBits)")
        }
        let pkey = try EVPKey.generate(EVP_PKEY_RSA) { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) }
        return try RS256Key(pkey: pkey)
    }

    /// The public key as PEM (`BEGIN PUBLIC KEY`).
    public var publicKeyPEM: String { publicKey.pem }

    /// The private key as PKCS#8 PEM (`BEGIN PRIVATE KEY`, the form of a service account's `private_key`).
    public var privateKeyPEM: String { EVPKey.privatePEM(pkey) }

    /// Signs `message` with RSASSA-PKCS1-v1_5 / SHA-256.
    /// - Returns: the signature, as many bytes as the modulus (256 for 2048 bits).
    /// - Throws: ``CryptoError`` `.operationFailed`.
    public func sign(_ message: some DataProtocol) throws(CryptoError) -> Data {
        Data(try EVPKey.signSHA256(pkey, message: [UInt8](message)))
    }
}
