import Foundation
import RelayAuth
import RelayCore
import RelayCrypto
import Testing

/// One row of the JWT table: how the token is made and what it comes to.
struct JWTRow: Sendable, CustomTestStringConvertible {
    var name: String
    var expected: String
    var make: @Sendable (JWTFixture) -> String
    var testDescription: String { name }

    init(_ name: String, _ expected: String, _ make: @escaping @Sendable (JWTFixture) -> String) {
        self.name = name
        self.expected = expected
        self.make = make
    }
}

@Suite struct JWTRuleTests {
    static let now = JWTFixture.now

    static let rows: [JWTRow] = [
        JWTRow("good ES256", "user alice") { Mint.token($0.ec, claims: $0.claims()) },
        JWTRow("good RS256", "user alice") { Mint.token($0.rsa, claims: $0.claims()) },
        JWTRow("good ES256 from the PEM key, no kid", "user alice") { Mint.token($0.pem, claims: $0.claims()) },
        JWTRow("aud an array holding the audience", "user alice") {
            Mint.token($0.ec, claims: $0.claims(["aud": ["other", JWTFixture.audience]]))
        },
        JWTRow("expired within the leeway", "user alice") { Mint.token($0.ec, claims: $0.claims(["exp": now - 30])) },
        JWTRow("expired", "401 token_expired") { Mint.token($0.ec, claims: $0.claims(["exp": now - 61])) },
        JWTRow("nbf in the future", "401 token_not_yet_valid") {
            Mint.token($0.ec, claims: $0.claims(["nbf": now + 120]))
        },
        JWTRow("iat in the future", "401 token_not_yet_valid") {
            Mint.token($0.ec, claims: $0.claims(["iat": now + 120]))
        },
        JWTRow("missing exp", "401 missing_claim") { Mint.token($0.ec, claims: $0.claims(["exp": nil])) },
        JWTRow("exp not a number", "401 invalid_claim") {
            Mint.token($0.ec, claims: $0.claims(["exp": "\(now + 600)"]))
        },
        JWTRow("wrong iss", "401 invalid_issuer") {
            Mint.token($0.ec, claims: $0.claims(["iss": "https://evil.example.test/"]))
        },
        JWTRow("missing iss", "401 missing_claim") { Mint.token($0.ec, claims: $0.claims(["iss": nil])) },
        JWTRow("wrong aud", "401 invalid_audience") { Mint.token($0.ec, claims: $0.claims(["aud": "other-app"])) },
        JWTRow("aud an array without the audience", "401 invalid_audience") {
            Mint.token($0.ec, claims: $0.claims(["aud": ["a", "b"]]))
        },
        JWTRow("unknown kid, no key of its kind without a kid", "401 unknown_key") {
            Mint.token($0.strangerRSA, claims: $0.claims())
        },
        JWTRow("unknown kid, tried with the PEM key", "401 invalid_signature") {
            Mint.token($0.strangerEC, claims: $0.claims(), header: ["kid": "ec-9"])
        },
        JWTRow("a configured kid signed by another key", "401 invalid_signature") {
            Mint.token($0.strangerEC, claims: $0.claims())
        },
        JWTRow("alg none", "401 unsigned_token") { fixture in
            Mint.token(header: ["alg": "none"], claims: fixture.claims()) { _ in Data() }
        },
        JWTRow("alg None, signed", "401 unsigned_token") { fixture in
            Mint.token(header: ["alg": "None", "kid": "ec-1"], claims: fixture.claims()) { fixture.ec.sign($0) }
        },
        JWTRow("HS256 signed with the public key's PEM", "401 unsupported_algorithm") { fixture in
            Mint.token(header: ["alg": "HS256"], claims: fixture.claims()) {
                Digest.hmacSHA256(key: Data(fixture.pem.publicPEM.utf8), Data($0.utf8))
            }
        },
        JWTRow("HS256 with the RSA key's kid", "401 unsupported_algorithm") { fixture in
            Mint.token(header: ["alg": "HS256", "kid": "rsa-1"], claims: fixture.claims()) {
                Digest.hmacSHA256(key: Data(fixture.rsa.publicPEM.utf8), Data($0.utf8))
            }
        },
        JWTRow("PS256", "401 unsupported_algorithm") {
            Mint.token($0.rsa, claims: $0.claims(), header: ["alg": "PS256"])
        },
        JWTRow("RS256 naming the EC key", "401 algorithm_mismatch") {
            Mint.token($0.rsa, claims: $0.claims(), header: ["kid": "ec-1"])
        },
        JWTRow("ES256 naming the RSA key", "401 algorithm_mismatch") {
            Mint.token($0.ec, claims: $0.claims(), header: ["kid": "rsa-1"])
        },
        JWTRow("tampered claims", "401 invalid_signature") { fixture in
            let good = Mint.token(fixture.ec, claims: fixture.claims()).split(separator: ".")
            return [String(good[0]), Mint.part(fixture.claims(["sub": "mallory"])), String(good[2])].joined(
                separator: "."
            )
        },
        JWTRow("tampered signature", "401 invalid_signature") { fixture in
            var parts = Mint.token(fixture.ec, claims: fixture.claims()).split(separator: ".").map(String.init)
            var signature = Data(base64URLEncoded: parts[2])!
            signature[10] ^= 0x01
            parts[2] = signature.base64URLEncodedString()
            return parts.joined(separator: ".")
        },
        JWTRow("ES256 signature in DER, not R||S", "401 invalid_signature") { fixture in
            Mint.token(header: ["alg": "ES256", "kid": "ec-1"], claims: fixture.claims()) {
                fixture.ec.derSignature($0)
            }
        },
        JWTRow("oversized", "401 token_too_large") {
            Mint.token($0.ec, claims: $0.claims(["pad": String(repeating: "x", count: 9000)]))
        },
        JWTRow("user id claim missing", "401 missing_claim") { Mint.token($0.ec, claims: $0.claims(["sub": nil])) },
        JWTRow("user id claim not a string", "401 invalid_claim") { Mint.token($0.ec, claims: $0.claims(["sub": 42])) },
        JWTRow("user id claim blank", "401 invalid_claim") {
            Mint.token($0.ec, claims: $0.claims(["sub": " \u{200B}"]))
        },
        JWTRow("user id claim over 256 bytes", "401 invalid_claim") {
            Mint.token($0.ec, claims: $0.claims(["sub": String(repeating: "a", count: 257)]))
        },
        JWTRow("not a JWT", "401 invalid_token") { _ in "an-opaque-session-token" },
        JWTRow("padding in a part", "401 invalid_token") { Mint.token($0.ec, claims: $0.claims()) + "==" },
        JWTRow("header not JSON", "401 invalid_token") { fixture in
            Data("not json".utf8).base64URLEncodedString() + "." + Mint.part(fixture.claims()) + ".AAAA"
        },
        // The claims are read once the signature verified: a forged token's are never parsed.
        JWTRow("claims not an object, forged", "401 invalid_signature") { fixture in
            Mint.part(["alg": "ES256"]) + "." + Data("[1]".utf8).base64URLEncodedString() + ".AAAA"
        },
        JWTRow("claims not an object, signed", "401 invalid_token") { fixture in
            let input = Mint.part(["alg": "ES256", "kid": "ec-1"]) + "." + Data("[1]".utf8).base64URLEncodedString()
            return input + "." + fixture.ec.sign(input).base64URLEncodedString()
        },
        JWTRow("claims not strict JSON, forged", "401 invalid_signature") { fixture in
            Mint.token(fixture.strangerEC, claims: fixture.claims(), claimsPrefix: #""sub":"mallory""#)
        },
        JWTRow("crit header", "401 invalid_token") {
            Mint.token($0.ec, claims: $0.claims(), header: ["crit": ["exp"]])
        },
        // RFC 7519 §4: either refused or the last one read; the relay refuses, as it does a body's.
        JWTRow("a claim named twice, signed", "401 invalid_token") {
            Mint.token($0.ec, claims: $0.claims(), claimsPrefix: #""sub":"mallory""#)
        },
        JWTRow("a header member named twice, signed", "401 invalid_token") {
            Mint.token($0.ec, claims: $0.claims(), headerPrefix: #""alg":"ES256""#)
        },
        JWTRow("a claim past 64 bits, as a request body may hold one", "user alice") {
            Mint.token($0.ec, claims: $0.claims(), claimsPrefix: #""uid":18446744073709551616"#)
        },
        JWTRow("the extra member alone, signed", "user mallory") {
            Mint.token($0.ec, claims: $0.claims(["sub": nil]), claimsPrefix: #""sub":"mallory""#)
        },
    ]

    @Test(arguments: rows) func row(_ row: JWTRow) async throws {
        let fixture = JWTFixture.shared
        #expect(await outcome(try fixture.authenticator(), row.make(fixture)) == row.expected)
    }

    @Test func anAlgorithmTheAppDoesNotTakeIsRefused() async throws {
        let fixture = JWTFixture.shared
        let esOnly = try fixture.authenticator(algorithms: [.es256])
        #expect(await outcome(esOnly, Mint.token(fixture.rsa, claims: fixture.claims())) == "401 unsupported_algorithm")
        #expect(await outcome(esOnly, Mint.token(fixture.ec, claims: fixture.claims())) == "user alice")
    }

    @Test func theUserIdComesFromTheConfiguredClaim() async throws {
        let fixture = JWTFixture.shared
        var settings = fixture.settings()
        settings.userIdClaim = "uid"
        let authenticator = try JWTAuthenticator(settings: settings, time: JWTFixture.clock(), logger: .disabled())
        let token = Mint.token(fixture.ec, claims: fixture.claims(["uid": "bob"]))
        #expect(await outcome(authenticator, token) == "user bob")
        #expect(await outcome(authenticator, Mint.token(fixture.ec, claims: fixture.claims())) == "401 missing_claim")
    }

    /// Expiry follows the injected clock: the same token passes, then fails once the clock moves past its
    /// `exp` and the leeway.
    @Test func expiryFollowsTheInjectedClock() async throws {
        let fixture = JWTFixture.shared
        let time = JWTFixture.clock()
        let authenticator = try fixture.authenticator(time: time)
        let token = Mint.token(fixture.ec, claims: fixture.claims())
        #expect(await outcome(authenticator, token) == "user alice")
        time.advance(by: .seconds(600 + 59))
        #expect(await outcome(authenticator, token) == "user alice")
        time.advance(by: .seconds(2))
        #expect(await outcome(authenticator, token) == "401 token_expired")
    }

    @Test func noRuleNeedsIssuerOrAudienceWhenNoneAreConfigured() async throws {
        let fixture = JWTFixture.shared
        let open = try JWTAuthenticator(
            settings: .init(publicKeyFiles: [fixture.pemFile]),
            time: JWTFixture.clock(),
            logger: .disabled()
        )
        let token = Mint.token(fixture.pem, claims: fixture.claims(["iss": nil, "aud": nil]))
        #expect(await outcome(open, token) == "user alice")
    }

    @Test func aRefusalNeverLogsTheToken() async throws {
        let fixture = JWTFixture.shared
        let memory = MemoryLogHandler()
        let authenticator = try JWTAuthenticator(
            settings: fixture.settings(),
            time: JWTFixture.clock(),
            logger: Logger(label: "test", level: .trace, handler: memory)
        )
        let token = Mint.token(fixture.ec, claims: fixture.claims(["exp": JWTFixture.now - 3600]))
        #expect(await outcome(authenticator, token) == "401 token_expired")
        let lines = memory.entries.map { "\($0.message) \($0.metadata)" }
        #expect(!lines.isEmpty)
        #expect(!lines.contains { $0.contains(token) || $0.contains(token.split(separator: ".")[2]) })
        #expect(memory.entries.allSatisfy { $0.metadata["token.sha256"]?.count == 12 })
    }
}
