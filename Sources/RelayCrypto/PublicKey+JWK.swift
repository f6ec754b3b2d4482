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
            pkey = try EVPKey.p256PublicKey(point: [0x04] + x + y)  // SEC 1 §2.3.3, uncompressed
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

    private static func rsaKey(n: [UInt8], e: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard let modulus = BN_bin2bn(n, Int32(n.count), nil) else {
            throw CryptoError(.operationFailed, "BN_bin2bn: \(openSSLErrorText())")
        }
        defer { BN_free(modulus) }
        guard let exponent = BN_bin2bn(e, Int32(e.count), nil) else {
            throw CryptoError(.operationFailed, "BN_bin2bn: \(openSSLErrorText())")
        }
        defer { BN_free(exponent) }
        let pkey = EVPKey.fromData(type: "RSA") { builder in
            OSSL_PARAM_BLD_push_BN(builder, EVPKey.cString("n"), modulus) == 1
                && OSSL_PARAM_BLD_push_BN(builder, EVPKey.cString("e"), exponent) == 1
        }
        guard let pkey else { throw CryptoError(.invalidKey, "not an RSA public key: \(openSSLErrorText())") }
        return pkey
    }
}
