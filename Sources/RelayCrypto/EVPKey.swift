import COpenSSL

/// What ``ES256Key``, ``RS256Key`` and ``PublicKey`` do alike with an OpenSSL `EVP_PKEY`: read it from PEM,
/// write it as PEM, make a fresh one or one from its parameters, name an EC key's curve, move a P-256 public
/// key in and out of its uncompressed point form, and sign or verify with SHA-256 (`EVP_DigestSign` /
/// `EVP_DigestVerify`, whose signature form the key type decides: DER ECDSA for EC, RSASSA-PKCS1-v1_5 for
/// RSA). `package`: the Web Push module builds its ECDH keys with the same helpers.
package enum EVPKey {
    /// Runs `read` (a `PEM_read_bio_*`) over a memory BIO holding `pem`; the BIO borrows the string's bytes
    /// only for the call.
    static func readPEM(_ pem: String, _ read: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        pem.withCString { text in
            guard let bio = BIO_new_mem_buf(text, -1) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
    }

    /// Reads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, or a traditional `BEGIN EC/RSA PRIVATE KEY`). An
    /// encrypted key is refused: its pass phrase is never asked for (OpenSSL's default callback would prompt
    /// on the terminal and wait). The caller owns the key (`EVP_PKEY_free`).
    /// - Throws: ``CryptoError`` `.invalidKey` when the text holds no private key, or an encrypted one.
    package static func readPrivate(pem: String) throws(CryptoError) -> OpaquePointer {
        guard let pkey = readPEM(pem, { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }) else {
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

    /// Reads a PEM public key (`BEGIN PUBLIC KEY`, SubjectPublicKeyInfo). The caller owns the key
    /// (`EVP_PKEY_free`).
    /// - Throws: ``CryptoError`` `.invalidKey` when the text holds no public key.
    static func readPublic(pem: String) throws(CryptoError) -> OpaquePointer {
        guard let pkey = readPEM(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
            throw CryptoError(.invalidKey, "not a PEM public key (BEGIN PUBLIC KEY): \(openSSLErrorText())")
        }
        return pkey
    }

    /// Makes a fresh private key of `type` (`EVP_PKEY_EC`, `EVP_PKEY_RSA`); `configure` sets its parameters
    /// on the key-generation context (curve, bits) and returns OpenSSL's 1 for success. The caller owns the
    /// key (`EVP_PKEY_free`).
    /// - Throws: ``CryptoError`` `.operationFailed` naming OpenSSL's error.
    package static func generate(
        _ type: Int32,
        configure: (OpaquePointer) -> Int32
    ) throws(CryptoError) -> OpaquePointer {
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
    package static func privatePEM(_ pkey: OpaquePointer) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil)
        return String(decoding: bioBytes(bio), as: UTF8.self)
    }

    /// An EC key's curve as OpenSSL names it (`prime256v1`), or "" for another kind of key.
    package static func groupName(_ pkey: OpaquePointer) -> String {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length)
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True for the names OpenSSL gives P-256.
    package static func isP256(_ group: String) -> Bool { group == "prime256v1" || group == "P-256" }

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

    /// The octets of an uncompressed P-256 point: 0x04, then x and y of 32 bytes each (SEC 1 §2.3.3).
    package static let p256PointSize = 65

    /// A P-256 public key from its encoded point (SEC 1 §2.3.3; uncompressed is `p256PointSize` bytes). The
    /// point is not checked against the curve here: ``PublicKey/init(adopting:keyId:)`` does that. The caller
    /// owns the key (`EVP_PKEY_free`).
    /// - Throws: ``CryptoError`` `.invalidKey` when OpenSSL refuses the octets.
    package static func p256PublicKey(point: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let pkey = point.withUnsafeBytes { raw in
            fromData(type: "EC") { builder in
                OSSL_PARAM_BLD_push_utf8_string(builder, cString("group"), cString("prime256v1"), 0) == 1
                    && OSSL_PARAM_BLD_push_octet_string(builder, cString("pub"), raw.baseAddress, raw.count) == 1
            }
        }
        guard let pkey else { throw CryptoError(.invalidKey, "not a P-256 public key: \(openSSLErrorText())") }
        return pkey
    }

    /// An EC key's public point, uncompressed (`p256PointSize` bytes for P-256); empty when OpenSSL has none.
    package static func uncompressedPoint(_ pkey: OpaquePointer) -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 133)  // P-521's uncompressed point, the largest
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, &point, point.count, &length) == 1 else {
            ERR_clear_error()
            return []
        }
        return Array(point.prefix(length))
    }

    /// A key of `type` (`EC`, `RSA`) from the parameters `push` adds to a builder (`EVP_PKEY_fromdata`);
    /// `selection` says which parts they hold (the public key by default). Nil when OpenSSL refuses them (its
    /// error queue says why). The builder keeps pointers to the names, strings and buffers it is given until
    /// `OSSL_PARAM_BLD_to_param`: names and strings are static (``cString(_:)``), buffers lent by the caller
    /// around this call.
    package static func fromData(
        type: String,
        selection: Int32 = copenssl_selection_public_key(),
        push: (OpaquePointer) -> Bool
    ) -> OpaquePointer? {
        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder), let parameters = OSSL_PARAM_BLD_to_param(builder) else { return nil }
        defer { OSSL_PARAM_free(parameters) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &pkey, selection, parameters) == 1 else {
            return nil
        }
        return pkey
    }

    /// A static string's bytes as a C string: a literal lives as long as the program and ends in NUL.
    package static func cString(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
