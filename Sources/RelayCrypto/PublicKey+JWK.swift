import COpenSSL
import Foundation
import RelayCore

extension PublicKey {
    /// Makes the key a JWK describes (RFC 7518 §6.2.1 for EC P-256, §6.3.1 for RSA) with OpenSSL's
    /// `EVP_PKEY_fromdata`; its `kid` becomes ``keyId``.
    /// - Throws: ``CryptoError`` `.invalidKey` for another `kty` or curve, members that are missing or not
    ///   base64url, an `alg` other than the key type's, or a key ``init(adopting:keyId:)`` refuses.
    public convenience init(jwk: JSONWebKey) throws(CryptoError) {
        let pkey: OpaquePointer
        switch jwk.kty {
        case "EC":
            guard jwk.crv == "P-256" else {
                throw CryptoError(.invalidKey, "EC key on curve '\(jwk.crv ?? "")'; ES256 needs P-256")
            }
            let x = try Self.member(jwk.x, "x"), y = try Self.member(jwk.y, "y")
            guard x.count == 32, y.count == 32 else {
                throw CryptoError(.invalidKey, "x and y of a P-256 key must be 32 bytes each")
            }
            pkey = try Self.ecKey(point: [0x04] + x + y)  // SEC 1 §2.3.3, uncompressed
            try Self.checkAlg(jwk.alg, .es256, pkey)
        case "RSA":
            pkey = try Self.rsaKey(n: try Self.member(jwk.n, "n"), e: try Self.member(jwk.e, "e"))
            try Self.checkAlg(jwk.alg, .rs256, pkey)
        default:
            throw CryptoError(.invalidKey, "kty '\(jwk.kty)' is neither EC nor RSA")
        }
        try self.init(adopting: pkey, keyId: jwk.kid)
    }

    /// The key as a JWK with ``keyId`` as its `kid`, `use` sig and `alg` its algorithm.
    public var jwk: JSONWebKey {
        func number(_ name: String, size: Int32 = 0) -> String {
            var bn: OpaquePointer?
            guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else { return "" }
            defer { BN_free(bn) }
            var bytes = [UInt8](repeating: 0, count: max(Int(size), Int((BN_num_bits(bn) + 7) / 8)))
            _ = BN_bn2binpad(bn, &bytes, Int32(bytes.count))
            return Data(bytes).base64URLEncodedString()
        }
        switch algorithm {
        case .es256:
            return JSONWebKey(
                kty: "EC",
                kid: keyId,
                use: "sig",
                alg: algorithm.rawValue,
                crv: "P-256",
                x: number(OSSL_PKEY_PARAM_EC_PUB_X, size: 32),
                y: number(OSSL_PKEY_PARAM_EC_PUB_Y, size: 32)
            )
        case .rs256:
            return JSONWebKey(
                kty: "RSA",
                kid: keyId,
                use: "sig",
                alg: algorithm.rawValue,
                n: number(OSSL_PKEY_PARAM_RSA_N),
                e: number(OSSL_PKEY_PARAM_RSA_E)
            )
        }
    }

    private static func member(_ value: String?, _ name: String) throws(CryptoError) -> [UInt8] {
        guard let value, !value.isEmpty, let bytes = Data(base64URLEncoded: value) else {
            throw CryptoError(.invalidKey, "'\(name)' is missing or not base64url")
        }
        return [UInt8](bytes)
    }

    /// Frees `pkey` and throws when the JWK's `alg` names another algorithm than the key's type takes.
    private static func checkAlg(_ alg: String?, _ expected: JWSAlgorithm, _ pkey: OpaquePointer) throws(CryptoError) {
        guard let alg, alg != expected.rawValue else { return }
        EVP_PKEY_free(pkey)
        throw CryptoError(.invalidKey, "alg '\(alg)' is not \(expected.rawValue), the one this key type is used for")
    }

    private static func ecKey(point: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let pkey = point.withUnsafeBytes { bytes in
            fromData(type: "EC") { builder in
                OSSL_PARAM_BLD_push_utf8_string(builder, cString("group"), cString("prime256v1"), 0) == 1
                    && OSSL_PARAM_BLD_push_octet_string(builder, cString("pub"), bytes.baseAddress, bytes.count) == 1
            }
        }
        guard let pkey else { throw CryptoError(.invalidKey, "not a P-256 public key: \(openSSLErrorText())") }
        return pkey
    }

    private static func rsaKey(n: [UInt8], e: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard let modulus = BN_bin2bn(n, Int32(n.count), nil) else {
            throw CryptoError(.operationFailed, "BN_bin2bn: \(openSSLErrorText())")
        }
        defer { BN_free(modulus) }
        guard let exponent = BN_bin2bn(e, Int32(e.count), nil) else {
            throw CryptoError(.operationFailed, "BN_bin2bn: \(openSSLErrorText())")
        }
        defer { BN_free(exponent) }
        let pkey = fromData(type: "RSA") { builder in
            OSSL_PARAM_BLD_push_BN(builder, cString("n"), modulus) == 1
                && OSSL_PARAM_BLD_push_BN(builder, cString("e"), exponent) == 1
        }
        guard let pkey else { throw CryptoError(.invalidKey, "not an RSA public key: \(openSSLErrorText())") }
        return pkey
    }

    /// A public key of `type` (`EC`, `RSA`) from the parameters `push` adds to a builder
    /// (`EVP_PKEY_fromdata`); nil when OpenSSL refuses them (its error queue says why). The builder keeps
    /// pointers to the names, strings and buffers it is given until `OSSL_PARAM_BLD_to_param`: names and
    /// strings are static (``cString(_:)``), buffers lent by the caller around this call.
    private static func fromData(type: String, push: (OpaquePointer) -> Bool) -> OpaquePointer? {
        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder), let parameters = OSSL_PARAM_BLD_to_param(builder) else { return nil }
        defer { OSSL_PARAM_free(parameters) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1,
            EVP_PKEY_fromdata(ctx, &pkey, copenssl_selection_public_key(), parameters) == 1
        else { return nil }
        return pkey
    }

    /// A static string's bytes as a C string: a literal lives as long as the program and ends in NUL.
    private static func cString(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
