import COpenSSL

/// What ``ES256Key`` and ``PublicKey`` share about an OpenSSL `EVP_PKEY`: reading PEM, naming an EC key's
/// curve, and making and checking SHA-256 signatures.
enum EVPKey {
    /// Runs `read` (a `PEM_read_bio_*`) over a memory BIO holding `pem`; the BIO borrows the string's bytes
    /// only for the call.
    static func readPEM(_ pem: String, _ read: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        pem.withCString { text in
            guard let bio = BIO_new_mem_buf(text, -1) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
    }

    /// An EC key's curve as OpenSSL names it (`prime256v1`), or "" for another kind of key.
    static func groupName(_ pkey: OpaquePointer) -> String {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length)
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True for the names OpenSSL gives P-256.
    static func isP256(_ group: String) -> Bool { group == "prime256v1" || group == "P-256" }

    /// Checks `signature` (DER for ECDSA, PKCS#1 v1.5 for RSA: OpenSSL's defaults) over SHA-256 of
    /// `message`. Any malformed input is simply `false`; OpenSSL's error queue is left empty.
    static func verifySHA256(_ pkey: OpaquePointer, signature: [UInt8], message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        return EVP_DigestVerify(ctx, signature, signature.count, message, message.count) == 1
    }

    /// Signs SHA-256 of `message` with a private key: DER for ECDSA, PKCS#1 v1.5 for RSA.
    /// - Throws: ``CryptoError`` `.operationFailed` naming the OpenSSL call that failed.
    static func signSHA256(_ pkey: OpaquePointer, message: [UInt8]) throws(CryptoError) -> [UInt8] {
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
}
