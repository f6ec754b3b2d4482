import Foundation
import RelayCrypto
import Testing

@Suite struct WebhookSignatureTests {
    static let secret = "whsec_0123456789abcdef"
    static let body = Data(#"{"roomId":"r","senderId":"a","text":"hi"}"#.utf8)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aFreshSignatureOverTheBodyPasses() throws {
        let header = WebhookSignature.sign(Self.body, secret: Self.secret, timestamp: 1_800_000_000)
        try WebhookSignature.verify(header, body: Self.body, secret: Self.secret, now: Self.now)
        try WebhookSignature.verify("v1=00," + header, body: Self.body, secret: Self.secret, now: Self.now + 299)
    }

    @Test(
        arguments: [
            (nil, WebhookSignature.Failure.missing),
            ("garbage", .malformed),
            ("t=1800000000", .malformed),
            ("t=1800000000,v1=zz", .malformed),
            // t written otherwise than the number the HMAC covers ("1800000000.body").
            ("t=0" + WebhookSignature.sign(body, secret: secret, timestamp: 1_800_000_000).dropFirst(2), .malformed),
            ("t=+" + WebhookSignature.sign(body, secret: secret, timestamp: 1_800_000_000).dropFirst(2), .malformed),
            // A second t, before or after the signed one: which one a reader takes is not the relay's guess.
            ("t=1," + WebhookSignature.sign(body, secret: secret, timestamp: 1_800_000_000), .malformed),
            (WebhookSignature.sign(body, secret: secret, timestamp: 1_800_000_000) + ",t=1", .malformed),
            // More v1 entries than any rotation needs, the right one among them.
            (
                String(repeating: "v1=00,", count: 8)
                    + WebhookSignature.sign(body, secret: secret, timestamp: 1_800_000_000), .malformed
            ),
            (WebhookSignature.sign(body, secret: secret, timestamp: 1_800_000_000 - 301), .stale),
            // Timestamps whose distance from now overflows Int (this crashed the relay) are stale.
            (WebhookSignature.sign(body, secret: secret, timestamp: Int.min), .stale),
            (WebhookSignature.sign(body, secret: secret, timestamp: -Int.max), .stale),
            (WebhookSignature.sign(body, secret: secret, timestamp: Int.max), .stale),
            (WebhookSignature.sign(body, secret: "another-secret-of-16", timestamp: 1_800_000_000), .mismatch),
            (WebhookSignature.sign(Data("{}".utf8), secret: secret, timestamp: 1_800_000_000), .mismatch),
        ] as [(String?, WebhookSignature.Failure)]
    )
    func badSignaturesAreRefused(header: String?, failure: WebhookSignature.Failure) {
        #expect(throws: failure) {
            try WebhookSignature.verify(header, body: Self.body, secret: Self.secret, now: Self.now)
        }
    }

    @Test func theShellRecipeInFixturesMatches() throws {
        // fixtures/sign-webhook.sh computes the same header with openssl; its HMAC input is "t.body".
        let expected = Digest.hmacSHA256(key: Data(Self.secret.utf8), Data("1800000000.".utf8) + Self.body)
        #expect(
            WebhookSignature.sign(Self.body, secret: Self.secret, timestamp: 1_800_000_000)
                == "t=1800000000,v1=" + expected.hexString
        )
    }
}
