import COpenSSL
import Foundation

/// What ES256Key and RS256Key do alike with an OpenSSL `EVP_PKEY`: read it from PEM, write it as PEM, and
/// sign or verify with SHA-256 (`EVP_DigestSign` / `EVP_DigestVerify`, whose signature form the key type
/// decides: DER ECDSA for EC, RSASSA-PKCS1-v1_5 for RSA).
enum EVPKey {
    /// Reads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, or a traditional `BEGIN EC/RSA PRIVATE KEY`). An
    /// encrypted key is refused: its pass phrase is never asked for (OpenSSL's default callback would prompt
    /// on the terminal and wait). The caller owns the key (`EVP_PKEY_free`).
    /// - Throws: ``CryptoError`` `.invalidKey` when the text holds no private key, or an encrypted one.
    static func readPrivate(pem: String) throws(CryptoError) -> OpaquePointer {
        let pkey: OpaquePointer? = pem.withCString { text in
            guard let bio = BIO_new_mem_buf(text, -1) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let pkey else {
            if pem.contains("ENCRYPTED") {
                _ = openSSLErrorText()  // clears the queue
                throw CryptoError(
                    .invalidKey,
                    "an encrypted private key: give it without a pass phrase (openssl pkcs8 -topk8 -nocrypt)"
                )
            }
            throw CryptoError(.invalidKey, "not a PEM private key: \(openSSLErrorText())")
        }
        return pkey
    }

    /// Reads a PEM public key (`BEGIN PUBLIC KEY`). The caller owns the key (`EVP_PKEY_free`).
    /// - Throws: ``CryptoError`` `.invalidKey` when the text holds no public key.
    static func readPublic(pem: String) throws(CryptoError) -> OpaquePointer {
        let pkey: OpaquePointer? = pem.withCString { text in
            guard let bio = BIO_new_mem_buf(text, -1) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let pkey else { throw CryptoError(.invalidKey, "not a PEM public key: \(openSSLErrorText())") }
        return pkey
    }

    /// Makes a fresh private key of `type` (`EVP_PKEY_EC`, `EVP_PKEY_RSA`); `configure` sets its parameters
    /// on the key-generation context (curve, bits) and returns OpenSSL's 1 for success. The caller owns the
    /// key (`EVP_PKEY_free`).
    /// - Throws: ``CryptoError`` `.operationFailed` naming OpenSSL's error.
    static func generate(_ type: Int32, configure: (OpaquePointer) -> Int32) throws(CryptoError) -> OpaquePointer {
        guard let ctx = EVP_PKEY_CTX_new_id(type, nil) else {
            throw CryptoError(.operationFailed, "EVP_PKEY_CTX_new_id: \(openSSLErrorText())")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, configure(ctx) == 1, EVP_PKEY_keygen(ctx, &pkey) == 1, let pkey else {
            throw CryptoError(.operationFailed, "EVP_PKEY_keygen: \(openSSLErrorText())")
        }
        return pkey
    }

    /// The public half as PEM (`BEGIN PUBLIC KEY`).
    static func publicPEM(_ pkey: OpaquePointer) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        PEM_write_bio_PUBKEY(bio, pkey)
        return String(decoding: bioBytes(bio), as: UTF8.self)
    }

    /// The private key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    static func privatePEM(_ pkey: OpaquePointer) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil)
        return String(decoding: bioBytes(bio), as: UTF8.self)
    }

    /// Signs `message` with SHA-256 in the key type's own signature form.
    /// - Throws: ``CryptoError`` `.operationFailed` naming OpenSSL's error.
    static func signSHA256(_ pkey: OpaquePointer, _ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw CryptoError(.operationFailed, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(ctx) }
        var length = 0
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, pkey) == 1,
            EVP_DigestSign(ctx, nil, &length, message, message.count) == 1
        else {
            throw CryptoError(.operationFailed, "EVP_DigestSign: \(openSSLErrorText())")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &signature, &length, message, message.count) == 1 else {
            throw CryptoError(.operationFailed, "EVP_DigestSign: \(openSSLErrorText())")
        }
        return Array(signature.prefix(length))
    }

    /// Checks a signature in the key type's own form over `message` with SHA-256; anything malformed is false.
    static func verifySHA256(_ pkey: OpaquePointer, signature: UnsafeRawBufferPointer, _ message: [UInt8]) -> Bool {
        guard signature.count > 0, let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        let ok =
            EVP_DigestVerify(
                ctx,
                signature.baseAddress?.assumingMemoryBound(to: UInt8.self),
                signature.count,
                message,
                message.count
            ) == 1
        ERR_clear_error()
        return ok
    }
}
