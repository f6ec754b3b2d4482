import COpenSSL
import Foundation
import RelayCore

@testable import RelayCrypto

/// A private key made at test time with OpenSSL, to sign test JWTs as an identity provider would. Not
/// `Sendable` by itself: the EVP_PKEY is only read after it is made.
final class TestSigner: @unchecked Sendable {
    let pkey: OpaquePointer
    let algorithm: JWSAlgorithm
    /// The `kid` its JWK and its tokens carry; nil for a PEM key.
    let kid: String?

    private init(pkey: OpaquePointer, algorithm: JWSAlgorithm, kid: String?) {
        self.pkey = pkey
        self.algorithm = algorithm
        self.kid = kid
    }

    deinit { EVP_PKEY_free(pkey) }

    /// An EC key on `curve` (P-256 unless told).
    static func ec(kid: String?, curve: Int32 = NID_X9_62_prime256v1) -> TestSigner {
        generate(EVP_PKEY_EC, .es256, kid: kid) { EVP_PKEY_CTX_set_ec_paramgen_curve_nid($0, curve) }
    }

    /// An RSA key of `bits` bits.
    static func rsa(kid: String?, bits: Int32 = 2048) -> TestSigner {
        generate(EVP_PKEY_RSA, .rs256, kid: kid) { EVP_PKEY_CTX_set_rsa_keygen_bits($0, bits) }
    }

    private static func generate(
        _ type: Int32,
        _ algorithm: JWSAlgorithm,
        kid: String?,
        _ configure: (OpaquePointer) -> Int32
    ) -> TestSigner {
        let ctx = EVP_PKEY_CTX_new_id(type, nil)!
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        precondition(EVP_PKEY_keygen_init(ctx) == 1 && configure(ctx) == 1 && EVP_PKEY_keygen(ctx, &pkey) == 1)
        return TestSigner(pkey: pkey!, algorithm: algorithm, kid: kid)
    }

    /// The JWS signature of `input`: raw R||S for EC, PKCS#1 v1.5 for RSA.
    func sign(_ input: String) -> Data {
        let signature = try! EVPKey.signSHA256(pkey, message: Array(input.utf8))
        return Data(algorithm == .es256 ? ECDSASignature.raw(fromDER: signature)! : signature)
    }

    /// The DER signature OpenSSL makes, which JWS does not take for ES256.
    func derSignature(_ input: String) -> Data { Data(try! EVPKey.signSHA256(pkey, message: Array(input.utf8))) }

    /// The public key as PEM (`BEGIN PUBLIC KEY`).
    var publicPEM: String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        PEM_write_bio_PUBKEY(bio, pkey)
        return String(decoding: bioBytes(bio), as: UTF8.self)
    }

    /// The public key with this signer's `kid`.
    var publicKey: PublicKey { try! PublicKey(pem: publicPEM, keyId: kid) }

    /// The public key as a JWK.
    var jwk: JSONWebKey { publicKey.jwk }
}

/// Test JWTs: JSON objects made with JSONSerialization, signed by a ``TestSigner``.
enum Mint {
    /// `object` as JSON, base64url; `prefix` (JSON text of members, `"sub":"mallory"`) comes before its own
    /// members: a member named twice when the object has it too.
    static func part(_ object: [String: Any], prefix: String? = nil) -> String {
        var text = String(
            decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
            as: UTF8.self
        )
        if let prefix { text = "{" + prefix + (object.isEmpty ? "" : ",") + text.dropFirst() }
        return Data(text.utf8).base64URLEncodedString()
    }

    /// A compact JWT of `claims`, its header `alg` and `kid` taken from `signer` unless `header` sets them;
    /// `headerPrefix` and `claimsPrefix` as ``part(_:prefix:)`` takes them.
    static func token(
        _ signer: TestSigner,
        claims: [String: Any],
        header: [String: Any] = [:],
        headerPrefix: String? = nil,
        claimsPrefix: String? = nil
    ) -> String {
        var fields: [String: Any] = ["alg": signer.algorithm.rawValue, "typ": "JWT"]
        if let kid = signer.kid { fields["kid"] = kid }
        fields.merge(header) { $1 }
        let input = part(fields, prefix: headerPrefix) + "." + part(claims, prefix: claimsPrefix)
        return input + "." + signer.sign(input).base64URLEncodedString()
    }

    /// A compact JWT whose signature part is `signature(input)`.
    static func token(header: [String: Any], claims: [String: Any], signature: (String) -> Data) -> String {
        let input = part(header) + "." + part(claims)
        return input + "." + signature(input).base64URLEncodedString()
    }
}
