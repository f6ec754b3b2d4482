import Foundation
import RelayCrypto
import Testing
import WebPushCore

/// A subscription key as PEM: written and read by OpenSSL, the same key back, other keys refused.
@Suite struct KeyAgreementKeyTests {
    @Test func aKeyReadsBackFromItsPEM() throws {
        let key = try KeyAgreementKey.generate()
        #expect(key.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let read = try KeyAgreementKey(privateKeyPEM: key.privateKeyPEM)
        #expect(read.publicKey == key.publicKey && read.rawPrivateKey == key.rawPrivateKey)
    }

    @Test func otherKeysAndTextAreRefused() throws {
        let rsa = try RS256Key.generate().privateKeyPEM
        for text in ["", "not a key", rsa] {
            #expect(throws: WebPushError.self) { try KeyAgreementKey(privateKeyPEM: text) }
        }
    }
}
