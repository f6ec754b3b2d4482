import Foundation
import RelayCrypto
import Testing
import WebPushCore

@Suite struct VAPIDTests {
    /// RFC 8292 §2.4: the example's `Authorization` value with its line wrapping removed. The token's
    /// claims are `{"aud":"https://push.example.net","exp":1453523768,"sub":"mailto:push@example.com"}`.
    static let rfcToken =
        "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJodHRwczovL3B1c2guZXhhbXBsZS5uZXQiLCJleHAiOjE0NTM1MjM3"
        + "NjgsInN1YiI6Im1haWx0bzpwdXNoQGV4YW1wbGUuY29tIn0.i3CYb7t4xfxCDquptFOepC9GAu_HLGkMlMuCGSK2rpiUfnK9ojFw"
        + "DXb1JrErtmysazNjjvW2L9OkSSHzvoD1oA"
    static let rfcKey = "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"
    static let rfcExp = 1_453_523_768
    static var rfcHeader: String { "vapid t=\(rfcToken), k=\(rfcKey)" }

    @Test func theRFCsExampleVerifiesWithItsKey() throws {
        let now = Date(timeIntervalSince1970: TimeInterval(Self.rfcExp - 3600))
        let verified = try VAPIDVerifier.verify(Self.rfcHeader, audience: "https://push.example.net", now: now)
        #expect(
            verified.claims
                == VAPIDClaims(aud: "https://push.example.net", exp: Self.rfcExp, sub: "mailto:push@example.com")
        )
        #expect(verified.publicKey.base64URLEncodedString() == Self.rfcKey)
        // The RFC prints the header over several lines: folded spaces around the parameters are taken.
        let folded = "vapid\n   t=\(Self.rfcToken),\n   k=\(Self.rfcKey)".replacingOccurrences(of: "\n", with: "")
        #expect(throws: Never.self) {
            try VAPIDVerifier.verify(folded, audience: "https://push.example.net", now: now)
        }
    }

    @Test func theRFCsExampleIsRefusedWhenExpiredTooFarAheadOrForAnotherOrigin() {
        let before = Date(timeIntervalSince1970: TimeInterval(Self.rfcExp - 60))
        let cases: [(String, Date, WebPushError.Code)] = [
            ("https://push.example.net", Date(timeIntervalSince1970: TimeInterval(Self.rfcExp)), .badExpiry),
            ("https://push.example.net", Date(timeIntervalSince1970: TimeInterval(Self.rfcExp - 90_000)), .badExpiry),
            ("https://push.example.net:8443", before, .wrongAudience),
            ("https://other.example.net", before, .wrongAudience),
        ]
        for (audience, now, code) in cases {
            let error = #expect(throws: WebPushError.self) {
                try VAPIDVerifier.verify(Self.rfcHeader, audience: audience, now: now)
            }
            #expect(error?.code == code, "\(audience) at \(now)")
        }
    }

    @Test func aSignatureFromAnotherKeyOrAlteredClaimsIsRefused() throws {
        let now = Date(timeIntervalSince1970: TimeInterval(Self.rfcExp - 60))
        let other = try VAPIDKey.generate()
        let swappedKey = "vapid t=\(Self.rfcToken), k=\(other.publicKeyBase64URL)"
        let error = #expect(throws: WebPushError.self) {
            try VAPIDVerifier.verify(swappedKey, audience: "https://push.example.net", now: now)
        }
        #expect(error?.code == .badSignature)
        // The same signature over claims naming another audience.
        let parts = Self.rfcToken.split(separator: ".")
        let claims = #"{"aud":"https://evil.example","exp":1453523768,"sub":"mailto:push@example.com"}"#
        let forged = "vapid t=\(parts[0]).\(Data(claims.utf8).base64URLEncodedString()).\(parts[2]), k=\(Self.rfcKey)"
        let forgedError = #expect(throws: WebPushError.self) {
            try VAPIDVerifier.verify(forged, audience: "https://evil.example", now: now)
        }
        #expect(forgedError?.code == .badSignature)
    }

    @Test func signThenVerify() throws {
        let key = try VAPIDKey.generate()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let subject = try VAPIDSubject(validating: "mailto:ops@example.com")
        let authorization = try key.authorization(audience: "https://fcm.googleapis.com", subject: subject, now: now)
        #expect(authorization.headerValue.hasPrefix("vapid t="))
        #expect(authorization.headerValue.hasSuffix(", k=\(key.publicKeyBase64URL)"))
        #expect(key.publicKey.count == 65 && key.publicKey.first == 0x04)
        let jws = try CompactJWS(parsing: authorization.token)
        #expect(jws.signature.count == 64)  // raw R‖S, not DER
        let header = try JSONSerialization.jsonObject(with: jws.header) as? [String: String]
        #expect(header == ["typ": "JWT", "alg": "ES256"])
        let verified = try VAPIDVerifier.verify(
            authorization.headerValue,
            audience: "https://fcm.googleapis.com",
            now: now.addingTimeInterval(3600)
        )
        #expect(verified.claims.exp == 1_800_000_000 + VAPIDKey.defaultLifetime)
        #expect(verified.claims.sub == "mailto:ops@example.com")
        #expect(verified.publicKey == key.publicKey)
        // Past its exp, it is refused.
        #expect(throws: WebPushError.self) {
            try VAPIDVerifier.verify(
                authorization.headerValue,
                audience: "https://fcm.googleapis.com",
                now: now.addingTimeInterval(TimeInterval(VAPIDKey.defaultLifetime))
            )
        }
    }

    @Test func aLifetimeBeyond24HoursIsRefusedWhenSigningAndWhenVerifying() throws {
        let key = try VAPIDKey.generate()
        let subject = try VAPIDSubject(validating: "https://example.com/contact")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for lifetime in [0, -1, VAPIDKey.maxLifetime + 1] {
            let error = #expect(throws: WebPushError.self) {
                try key.authorization(audience: "https://a.example", subject: subject, now: now, lifetime: lifetime)
            }
            #expect(error?.code == .badExpiry)
        }
        let full = try key.authorization(
            audience: "https://a.example",
            subject: subject,
            now: now,
            lifetime: VAPIDKey.maxLifetime
        )
        #expect(throws: Never.self) {
            try VAPIDVerifier.verify(full.headerValue, audience: "https://a.example", now: now)
        }
        // Seen a minute earlier, the same token's exp is more than 24 hours ahead.
        let error = #expect(throws: WebPushError.self) {
            try VAPIDVerifier.verify(full.headerValue, audience: "https://a.example", now: now.addingTimeInterval(-60))
        }
        #expect(error?.code == .badExpiry)
    }

    @Test func aGeneratedKeyReadsBackFromItsPEM() throws {
        let key = try VAPIDKey.generate()
        #expect(key.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try VAPIDKey(privateKeyPEM: key.privateKeyPEM)
        #expect(again.publicKey == key.publicKey)
        #expect(key.publicKeyBase64URL.count == 87)
        #expect(!key.publicKeyBase64URL.contains("="))
        let error = #expect(throws: WebPushError.self) { try VAPIDKey(privateKeyPEM: "not a key") }
        #expect(error?.code == .invalidKey)
        let rsa = try RS256Key.generate()
        #expect(throws: WebPushError.self) { try VAPIDKey(privateKeyPEM: rsa.privateKeyPEM) }
    }

    @Test(arguments: [
        "mailto:ops@example.com", "MAILTO:ops@example.com", "https://example.com", "https://example.com/contact",
    ])
    func acceptedSubjects(subject: String) {
        #expect(throws: Never.self) { try VAPIDSubject(validating: subject) }
    }

    @Test(arguments: [
        "", "ops@example.com", "mailto:", "mailto:ops", "mailto:@example.com", "mailto:a@b@c", "http://example.com",
        "https:example.com", "https://", "mailto:ops @example.com", "tel:+15551234",
        "mailto:" + String(repeating: "a", count: 600) + "@example.com",
    ])
    func refusedSubjects(subject: String) {
        let error = #expect(throws: WebPushError.self) { try VAPIDSubject(validating: subject) }
        #expect(error?.code == .invalidSubject)
    }

    @Test func aTokenWithoutSubOrWithAnotherAlgorithmIsRefused() throws {
        let key = try VAPIDKey.generate()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let es256 = try ES256Key(privateKeyPEM: key.privateKeyPEM)
        func header(_ headerJSON: String, _ claimsJSON: String) throws -> String {
            let input =
                Data(headerJSON.utf8).base64URLEncodedString() + "." + Data(claimsJSON.utf8).base64URLEncodedString()
            let signature = try es256.sign(Data(input.utf8)).base64URLEncodedString()
            return "vapid t=\(input).\(signature), k=\(key.publicKeyBase64URL)"
        }
        let good = #"{"typ":"JWT","alg":"ES256"}"#
        let cases: [(String, String, WebPushError.Code)] = [
            (good, #"{"aud":"https://a.example","exp":1800003600}"#, .invalidSubject),
            (good, #"{"aud":"https://a.example","exp":1800003600,"sub":"ops"}"#, .invalidSubject),
            (good, #"{"aud":"https://a.example","sub":"mailto:a@b"}"#, .badExpiry),
            (good, #"{"exp":1800003600,"sub":"mailto:a@b"}"#, .wrongAudience),
            (
                #"{"typ":"JWT","alg":"HS256"}"#, #"{"aud":"https://a.example","exp":1800003600,"sub":"mailto:a@b"}"#,
                .invalidCredentials
            ),
            (#"{"typ":"JWT","alg":"ES256"}"#, "[]", .invalidCredentials),
        ]
        for (headerJSON, claimsJSON, code) in cases {
            let value = try header(headerJSON, claimsJSON)
            let error = #expect(throws: WebPushError.self) {
                try VAPIDVerifier.verify(value, audience: "https://a.example", now: now)
            }
            #expect(error?.code == code, "\(claimsJSON)")
        }
        #expect(throws: Never.self) {
            try VAPIDVerifier.verify(
                try header(good, #"{"aud":"https://a.example","exp":1800003600,"sub":"mailto:a@b"}"#),
                audience: "https://a.example",
                now: now
            )
        }
    }

    @Test(arguments: [
        "", "Bearer abc", "vapid", "vapid t=abc", "vapid k=abc", "vapid t=a, t=b, k=c", "WebPush t=a, k=b",
        "vapid t=, k=abc",
    ])
    func malformedAuthorizationValues(value: String) {
        let error = #expect(throws: WebPushError.self) {
            try VAPIDVerifier.verify(value, audience: "https://a.example", now: Date())
        }
        #expect(error?.code == .invalidCredentials)
    }

    @Test func theHeaderParserTakesCaseQuotesAndSpaces() throws {
        let parsed = try VAPIDAuthorization(parsing: #"  VAPID k="KEY" ,t = a.b.c  "#)
        #expect(parsed == VAPIDAuthorization(token: "a.b.c", publicKey: "KEY"))
        #expect(parsed.headerValue == "vapid t=a.b.c, k=KEY")
    }
}
