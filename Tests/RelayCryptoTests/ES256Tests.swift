import Foundation
import RelayCrypto
import Testing

@Suite struct ES256Tests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../fixtures"
    )
    .standardized

    @Test func aProviderTokenSignedWithTheP8VerifiesWithThePublicKey() throws {
        let p8 = try String(
            contentsOf: Self.fixtures.appendingPathComponent("keys/AuthKey_ABC123DEFG.p8"),
            encoding: .utf8
        )
        let pub = try String(
            contentsOf: Self.fixtures.appendingPathComponent("keys/AuthKey_ABC123DEFG.pub.pem"),
            encoding: .utf8
        )
        let token = try JSONWebToken.sign(
            keyId: "ABC123DEFG",
            teamId: "TEAM123456",
            issuedAt: 1_800_000_000,
            key: ES256Key(privateKeyPEM: p8)
        )
        #expect(token.signature.count == 64)
        let parsed = try JSONWebToken(parsing: token.compact)
        #expect(parsed.header == .init(alg: "ES256", kid: "ABC123DEFG"))
        #expect(parsed.claims == .init(iss: "TEAM123456", iat: 1_800_000_000))
        #expect(parsed.verify(with: try ES256Key(publicKeyPEM: pub)))
        let other = try String(
            contentsOf: Self.fixtures.appendingPathComponent("keys/AuthKey_XYZ987WXYZ.pub.pem"),
            encoding: .utf8
        )
        #expect(!parsed.verify(with: try ES256Key(publicKeyPEM: other)))
    }

    @Test func aTamperedClaimFailsVerification() throws {
        let key = try ES256Key.generate()
        let token = try JSONWebToken.sign(keyId: "K", teamId: "T", issuedAt: 1, key: key)
        let forged = try JSONWebToken.sign(keyId: "K", teamId: "EVIL", issuedAt: 1, key: key)
        let spliced = forged.signingInput + "." + token.signature.base64URLEncodedString()
        #expect(!(try JSONWebToken(parsing: spliced)).verify(with: key))
        #expect(try JSONWebToken(parsing: token.compact).verify(with: ES256Key(publicKeyPEM: key.publicKeyPEM)))
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!.??.**", "e30.e30.AA"])
    func malformedTokensAreRefused(text: String) {
        #expect(throws: CryptoError.self) { try JSONWebToken(parsing: text) }
    }

    @Test func nonKeysAreRefused() {
        #expect(throws: CryptoError.self) { try ES256Key(privateKeyPEM: "not a key") }
    }

    /// An encrypted key is refused with what to do about it, and never asks for a pass phrase (OpenSSL's
    /// default would prompt on the terminal and wait: `config check` and `serve` hung). Test-only key,
    /// pass phrase "x".
    @Test func anEncryptedKeyIsRefusedWithoutAPrompt() {
        let encrypted = """
            -----BEGIN ENCRYPTED PRIVATE KEY-----
            MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjQNwF4BVfp4gICCAAw
            DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEED4a5h3aBvgLX/fFs0b+1yAEgZD2
            1D1bRfH+yIGzeu5J81pma9AihS/IZagr+QszLS5NstEyZdA4wZx6efgYzof1I04o
            lRRAZmW2vJ6i+5Sv33iPyGimi9TlYEBcgOOq5TTRFUr7ObARrFVpG0WWExuwm9yG
            JR96fiaCcVDXVrhy7UtdkN1v5bYzYqMa0WHxXLW0cdX0Hud1oOy5Y9WKh3DTvko=
            -----END ENCRYPTED PRIVATE KEY-----
            """
        #expect {
            _ = try ES256Key(privateKeyPEM: encrypted)
        } throws: { error in
            "\(error)".contains("encrypted private key") && "\(error)".contains("-nocrypt")
        }
    }

    @Test func hmacMatchesRFC4231Case2() {
        let mac = Digest.hmacSHA256(key: Data("Jefe".utf8), Data("what do ya want for nothing?".utf8))
        #expect(mac.hexString == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
