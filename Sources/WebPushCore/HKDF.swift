import COpenSSL
import Foundation
import RelayCrypto

/// HKDF with SHA-256 (RFC 5869): extract with `salt`, then expand with `info` to `length` bytes, through
/// OpenSSL's HKDF key derivation (`EVP_PKEY_derive` on an `HKDF` context).
enum HKDF {
    /// HKDF-SHA-256 of `ikm` with `salt` and `info`, `length` bytes (at most 255 × 32).
    /// - Throws: ``WebPushError`` `.cryptoFailed` naming OpenSSL's error.
    static func sha256(ikm: Data, salt: Data, info: Data, length: Int) throws(WebPushError) -> Data {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "HKDF", nil) else {
            throw WebPushError(.cryptoFailed, "EVP_PKEY_CTX_new_from_name(HKDF): \(openSSLErrorText())")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        let ikm = [UInt8](ikm), salt = [UInt8](salt), info = [UInt8](info)
        var out = [UInt8](repeating: 0, count: length)
        var written = length
        let sha256 = EVPKey.cString("SHA256")
        // The parameter array points into these buffers; it lives only inside the closures.
        let derived = ikm.withUnsafeBytes { key in
            salt.withUnsafeBytes { salt in
                info.withUnsafeBytes { info in
                    withParameters { builder in
                        OSSL_PARAM_BLD_push_utf8_string(builder, EVPKey.cString("digest"), sha256, 0) == 1
                            && push(builder, "key", key) && push(builder, "salt", salt) && push(builder, "info", info)
                    } derive: { parameters in
                        EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_CTX_set_params(ctx, parameters) == 1
                            && EVP_PKEY_derive(ctx, &out, &written) == 1
                    }
                }
            }
        }
        guard derived, written == length else { throw WebPushError(.cryptoFailed, "HKDF: \(openSSLErrorText())") }
        return Data(out)
    }

    private static func push(_ builder: OpaquePointer, _ name: StaticString, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }  // every input here is a few bytes or more
        return OSSL_PARAM_BLD_push_octet_string(builder, EVPKey.cString(name), base, bytes.count) == 1
    }

    /// Builds an `OSSL_PARAM` array with `push` and runs `derive` with it.
    private static func withParameters(
        _ push: (OpaquePointer) -> Bool,
        derive: (UnsafeMutablePointer<OSSL_PARAM>) -> Bool
    ) -> Bool {
        guard let builder = OSSL_PARAM_BLD_new() else { return false }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder), let parameters = OSSL_PARAM_BLD_to_param(builder) else { return false }
        defer { OSSL_PARAM_free(parameters) }
        return derive(parameters)
    }
}
