import COpenSSL
import Foundation
import RelayCore
import Testing

@testable import RelayCrypto

/// RelayCrypto's public keys: from PEM and from JWK, and what each refuses.
@Suite struct PublicKeyTests {
    @Test(arguments: [JWSAlgorithm.es256, .rs256])
    func aJWKMakesTheSameKeyAsThePEM(_ algorithm: JWSAlgorithm) throws {
        let signer = algorithm == .es256 ? JWTFixture.shared.ec : JWTFixture.shared.rsa
        let fromJWK = try PublicKey(jwk: signer.jwk)
        #expect(fromJWK.algorithm == algorithm)
        #expect(fromJWK.keyId == signer.kid)
        #expect(fromJWK.pem == signer.publicPEM)
        #expect(fromJWK.verify(signature: signer.sign("message"), for: Data("message".utf8)))
        #expect(!fromJWK.verify(signature: signer.sign("message"), for: Data("massage".utf8)))
    }
}

extension PublicKeyTests {
    @Test func keysOfOtherKindsAreRefused() throws {
        let p384 = TestSigner.ec(kid: nil, curve: NID_secp384r1)
        #expect(throws: CryptoError.self) { try PublicKey(pem: p384.publicPEM) }
        #expect(throws: CryptoError.self) { try PublicKey(pem: TestSigner.rsa(kid: nil, bits: 1024).publicPEM) }
        #expect(throws: CryptoError.self) {
            try PublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
        let p8 = try String(contentsOfFile: Self.fixture("keys/AuthKey_ABC123DEFG.p8"), encoding: .utf8)
        #expect(throws: CryptoError.self) { try PublicKey(pem: p8) }
        #expect(
            try PublicKey(pem: String(contentsOfFile: Self.fixture("keys/AuthKey_ABC123DEFG.pub.pem"), encoding: .utf8))
                .algorithm == .es256
        )
    }

    @Test func jwksThatCannotBeUsedAreRefusedWithTheReason() throws {
        let good = JWTFixture.shared.ec.jwk
        var offCurve = good
        offCurve.y = good.x
        var wrongAlg = good
        wrongAlg.alg = "ES384"
        var shortX = good
        shortX.x = "AAAA"
        var rsaWrongAlg = JWTFixture.shared.rsa.jwk
        rsaWrongAlg.alg = "RS512"
        var missing = JWTFixture.shared.rsa.jwk
        missing.e = nil
        for jwk in [offCurve, wrongAlg, shortX, rsaWrongAlg, missing, JSONWebKey(kty: "oct")] {
            #expect(throws: CryptoError.self, "\(jwk)") { try PublicKey(jwk: jwk) }
        }
        let set = JSONWebKeySet(keys: [good, offCurve, JSONWebKey(kty: "oct"), JSONWebKey(kty: "RSA", use: "enc")])
        let (keys, skipped) = set.publicKeys()
        #expect(keys.map(\.keyId) == ["ec-1"])
        #expect(skipped.count == 1)
        #expect(skipped.first?.hasPrefix("keys[1] (kid 'ec-1'): not a P-256 public key") == true)
    }

    static func fixture(_ path: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../fixtures/\(path)")
            .standardized.path
    }
}
