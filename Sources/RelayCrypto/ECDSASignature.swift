import COpenSSL

/// ECDSA signatures in the two forms they travel in: JWS's raw R||S, each half left-padded to the curve's
/// size (RFC 7518 §3.4), and the DER `ECDSA-Sig-Value` OpenSSL signs and verifies (RFC 3279 §2.2.3).
enum ECDSASignature {
    /// DER from raw R||S of `2 * size` bytes; nil when the length is wrong or OpenSSL refuses it.
    static func der(fromRaw raw: [UInt8], size: Int = 32) -> [UInt8]? {
        guard raw.count == 2 * size, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(raw, Int32(size), nil) else { return nil }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + size, Int32(size), nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var pointer: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &pointer)
        guard length > 0, let pointer else { return nil }
        defer { copenssl_free(pointer) }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(length)))
    }

    /// Raw R||S of `2 * size` bytes from DER; nil when the DER does not parse or a half does not fit.
    static func raw(fromDER der: [UInt8], size: Int = 32) -> [UInt8]? {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, der.count)
        }
        guard let signature else { return nil }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 2 * size)
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature),
            BN_bn2binpad(r, &raw, Int32(size)) == size,
            raw.withUnsafeMutableBufferPointer({ BN_bn2binpad(s, $0.baseAddress! + size, Int32(size)) }) == size
        else { return nil }
        return raw
    }
}
