import COpenSSL
import Foundation

/// A P-256 (prime256v1) key for ES256: a private key signs, a public key verifies.
///
/// Source: RFC 7518 §3.4 (ECDSA using P-256 and SHA-256: the JWS signature is raw R||S, 64 bytes,
/// each half left-padded to 32 bytes, not DER). Apple's .p8 files are PKCS#8 PEM private keys.
/// Safe to share across threads: the EVP_PKEY is never mutated after loading (OpenSSL 3 allows concurrent
/// use of a key in separate contexts).
public final class ES256Key: @unchecked Sendable {
    let pkey: OpaquePointer
    /// True when this key can sign (holds the private part).
    public let isPrivate: Bool

    private init(pkey: OpaquePointer, isPrivate: Bool) throws(CryptoError) {
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC else {
            EVP_PKEY_free(pkey)
            throw CryptoError(.invalidKey, "key is not an elliptic-curve key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        EVP_PKEY_get_utf8_string_param(pkey, "group", &name, name.count, &length)
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard group == "prime256v1" || group == "P-256" else {
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
        let der = try EVPKey.signSHA256(pkey, [UInt8](message))
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw CryptoError(.operationFailed, "d2i_ECDSA_SIG: \(openSSLErrorText())") }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 64)
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature),
            BN_bn2binpad(r, &raw, 32) == 32,
            raw.withUnsafeMutableBufferPointer({ BN_bn2binpad(s, $0.baseAddress! + 32, 32) }) == 32
        else {
            throw CryptoError(.operationFailed, "BN_bn2binpad: \(openSSLErrorText())")
        }
        return Data(raw)
    }

    /// Checks a raw R||S signature (64 bytes) over `message`. Any malformed input is simply `false`.
    public func verify(signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        let raw = [UInt8](signature)
        guard raw.count == 64, let signatureObject = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(signatureObject) }
        guard let r = BN_bin2bn(raw, 32, nil) else { return false }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else {
            BN_free(r)
            return false
        }
        guard ECDSA_SIG_set0(signatureObject, r, s) == 1 else {
            BN_free(r); BN_free(s)
            return false
        }
        var derPointer: UnsafeMutablePointer<UInt8>?
        let derLength = i2d_ECDSA_SIG(signatureObject, &derPointer)
        guard derLength > 0, let derPointer else { return false }
        defer { copenssl_free(derPointer) }
        return EVPKey.verifySHA256(
            pkey,
            signature: UnsafeRawBufferPointer(start: derPointer, count: Int(derLength)),
            [UInt8](message)
        )
    }
}
