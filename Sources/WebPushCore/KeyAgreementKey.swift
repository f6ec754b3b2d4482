import COpenSSL
import Foundation
import RelayCrypto

/// A P-256 private key for ECDH (NIST SP 800-56A): an application server's key for one message (RFC 8291
/// §3.1), or a user agent's subscription key held by the mock push service.
///
/// Safe to share across threads: the EVP_PKEY is never changed after it is made (OpenSSL 3 allows concurrent
/// use of a key in separate contexts).
public final class KeyAgreementKey: @unchecked Sendable {
    let pkey: OpaquePointer
    /// The public key as an uncompressed point: 65 bytes starting with 0x04 (a subscription's `p256dh`, an
    /// `aes128gcm` header's key id).
    public let publicKey: Data

    /// Takes ownership of `pkey` (freed here when refused).
    private init(adopting pkey: OpaquePointer) throws(WebPushError) {
        let point = EVPKey.uncompressedPoint(pkey)
        guard point.count == 65 else {
            EVP_PKEY_free(pkey)
            throw WebPushError(.invalidKey, "the key has no P-256 public point")
        }
        self.pkey = pkey
        self.publicKey = Data(point)
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Makes a fresh key from OpenSSL's CSPRNG.
    /// - Throws: ``WebPushError`` `.cryptoFailed` when OpenSSL cannot.
    public static func generate() throws(WebPushError) -> KeyAgreementKey {
        let pkey: OpaquePointer
        do {
            pkey = try EVPKey.generate(EVP_PKEY_EC) { EVP_PKEY_CTX_set_ec_paramgen_curve_nid($0, NID_X9_62_prime256v1) }
        } catch { throw WebPushError(.cryptoFailed, "generating a P-256 key: \(error.message)") }
        return try KeyAgreementKey(adopting: pkey)
    }

    /// Makes the key whose private scalar is `rawPrivateKey` (32 bytes, big-endian: the form RFC 8291's
    /// example gives), computing its public point.
    /// - Throws: ``WebPushError`` `.invalidKey` for another length or a scalar outside [1, n-1].
    public convenience init(rawPrivateKey: some DataProtocol) throws(WebPushError) {
        let scalar = [UInt8](rawPrivateKey)
        guard scalar.count == 32 else {
            throw WebPushError(.invalidKey, "a P-256 private key is 32 bytes, got \(scalar.count)")
        }
        guard let point = Self.publicPoint(ofScalar: scalar) else {
            ERR_clear_error()
            throw WebPushError(.invalidKey, "not a P-256 private key: the number must be from 1 to the group order - 1")
        }
        guard let priv = BN_bin2bn(scalar, Int32(scalar.count), nil) else {
            throw WebPushError(.cryptoFailed, "BN_bin2bn: \(openSSLErrorText())")
        }
        defer { BN_clear_free(priv) }
        let pkey = point.withUnsafeBytes { pub in
            EVPKey.fromData(type: "EC", selection: copenssl_selection_public_key() | OSSL_KEYMGMT_SELECT_PRIVATE_KEY) {
                OSSL_PARAM_BLD_push_utf8_string($0, EVPKey.cString("group"), EVPKey.cString("prime256v1"), 0) == 1
                    && OSSL_PARAM_BLD_push_BN($0, EVPKey.cString("priv"), priv) == 1
                    && OSSL_PARAM_BLD_push_octet_string($0, EVPKey.cString("pub"), pub.baseAddress, pub.count) == 1
            }
        }
        guard let pkey else { throw WebPushError(.invalidKey, "not a P-256 private key: \(openSSLErrorText())") }
        try self.init(adopting: pkey)
    }

    /// Reads a P-256 private key from PEM (PKCS#8 `BEGIN PRIVATE KEY` or SEC 1 `BEGIN EC PRIVATE KEY`), by
    /// OpenSSL's PEM reader.
    /// - Throws: ``WebPushError`` `.invalidKey` when the text is not one, or is a key of another kind or curve.
    public convenience init(privateKeyPEM pem: String) throws(WebPushError) {
        let pkey: OpaquePointer
        do { pkey = try EVPKey.readPrivate(pem: pem) } catch { throw WebPushError(.invalidKey, error.message) }
        guard EVPKey.isP256(EVPKey.groupName(pkey)) else {
            EVP_PKEY_free(pkey)
            throw WebPushError(.invalidKey, "not a P-256 key")
        }
        try self.init(adopting: pkey)
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`), written by OpenSSL: what
    /// ``init(privateKeyPEM:)`` reads back.
    public var privateKeyPEM: String { EVPKey.privatePEM(pkey) }

    /// The private scalar: 32 bytes, big-endian (what ``init(rawPrivateKey:)`` takes back).
    public var rawPrivateKey: Data {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY, &bn) == 1, let bn else { return Data() }
        defer { BN_clear_free(bn) }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(bn, &bytes, 32) == 32 else { return Data() }
        return Data(bytes)
    }

    /// The ECDH shared secret with `peer`, an uncompressed P-256 point: the x coordinate, 32 bytes.
    /// - Throws: ``WebPushError`` `.invalidKey` for a peer that is not a point on the curve, `.cryptoFailed`
    ///   when the derivation fails.
    public func sharedSecret(with peer: some DataProtocol) throws(WebPushError) -> Data {
        let peerKey: PublicKey
        do { peerKey = try PublicKey(p256Point: peer) } catch {
            throw WebPushError(.invalidKey, "the peer's key is not a P-256 point: \(error.message)")
        }
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw WebPushError(.cryptoFailed, "EVP_PKEY_CTX_new_from_pkey: \(openSSLErrorText())")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var length = 0
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, peerKey.pkey) == 1,
            EVP_PKEY_derive(ctx, nil, &length) == 1
        else { throw WebPushError(.cryptoFailed, "ECDH: \(openSSLErrorText())") }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(ctx, &secret, &length) == 1 else {
            throw WebPushError(.cryptoFailed, "ECDH: \(openSSLErrorText())")
        }
        return Data(secret.prefix(length))
    }

    /// The uncompressed public point of private scalar `scalar` (scalar × G); nil when the scalar is 0 or not
    /// below the group order. OpenSSL 3.0's `EVP_PKEY_fromdata` does not derive it from the private key.
    private static func publicPoint(ofScalar scalar: [UInt8]) -> [UInt8]? {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { return nil }
        defer { EC_GROUP_free(group) }
        guard let k = BN_bin2bn(scalar, Int32(scalar.count), nil) else { return nil }
        defer { BN_clear_free(k) }
        guard BN_is_zero(k) == 0, let order = EC_GROUP_get0_order(group), BN_cmp(k, order) < 0,
            let point = EC_POINT_new(group)
        else { return nil }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(group, point, k, nil, nil, nil) == 1 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 65)
        let written = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &bytes, bytes.count, nil)
        return written == 65 ? bytes : nil
    }
}
