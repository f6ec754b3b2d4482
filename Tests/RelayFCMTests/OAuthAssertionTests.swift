import FCMCore
import Foundation
import RelayCore
import RelayCrypto
import RelayFCM
import Testing

@Suite struct OAuthAssertionTests {
    static let key = try! RS256Key.generate()
    static let account = FCMServiceAccount(
        projectId: "chat-app-1234",
        privateKeyId: "4f2a9c0b7d1e",
        privateKey: key.privateKeyPEM,
        clientEmail: "relay@chat-app-1234.iam.gserviceaccount.com",
        tokenURI: "https://oauth2.googleapis.com/token"
    )

    @Test func theAssertionHasGooglesClaimsAndVerifiesWithTheAccountsKey() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000.7)
        let assertion = try OAuthAssertion.sign(for: Self.account, key: Self.key, now: now)
        let jws = try CompactJWS(parsing: assertion.compact)
        let header = try JSONDecoder().decode(OAuthAssertion.Header.self, from: jws.header)
        #expect(header == .init(alg: "RS256", typ: "JWT", kid: "4f2a9c0b7d1e"))
        let claims = try JSONDecoder().decode(OAuthAssertion.Claims.self, from: jws.payload)
        #expect(
            claims
                == .init(
                    iss: "relay@chat-app-1234.iam.gserviceaccount.com",
                    scope: "https://www.googleapis.com/auth/firebase.messaging",
                    aud: "https://oauth2.googleapis.com/token",
                    iat: 1_800_000_000,
                    exp: 1_800_003_600
                )
        )
        let publicKey = try PublicKey(pem: Self.key.publicKeyPEM)
        #expect(publicKey.verify(signature: jws.signature, for: Data(jws.signingInput.utf8)))
    }

    @Test func theTokenRequestIsAFormWithTheGrantTypeAndTheAssertion() throws {
        let assertion = try OAuthAssertion.sign(for: Self.account, key: Self.key, now: Date())
        let body = String(decoding: assertion.tokenRequestBody, as: UTF8.self)
        #expect(body.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="))
        let items = try #require(URLComponents(string: "?" + body)?.queryItems)
        #expect(items.map(\.name) == ["grant_type", "assertion"])
        #expect(items[0].value == FCMLimits.jwtBearerGrantType)
        #expect(items[1].value == assertion.compact)
    }
}
