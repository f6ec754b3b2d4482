import Foundation
import RelayAuth
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayTestSupport
import Testing

/// An app's userAuth as a whole: JWT rules, webhook, both, and what loading it at start refuses.
@Suite struct AppUserAuthenticatorTests {
    let fixture = JWTFixture.shared

    func both(_ webhookURL: String) throws -> AppUserAuthenticator {
        try AppUserAuthenticator.make(
            for: .init(
                jwt: fixture.settings(),
                dittoAuthWebhook: .init(url: webhookURL, provider: "my-auth")
            ),
            time: JWTFixture.clock(),
            logger: .disabled()
        )
    }

    static let accepting: TestEndpoint.Answer = { _ in
        TestEndpoint.json(["authenticate": true, "userID": "from-webhook"])
    }

    @Test func withBothATokenThatIsNotAJWTGoesToTheWebhook() async throws {
        try await withEndpoint(Self.accepting) { endpoint in
            let authenticator = try both(endpoint.url())
            #expect(await outcome(authenticator, "opaque-session-token") == "user from-webhook")
            #expect(endpoint.calls == 1)
        }
    }

    @Test func withBothAJWTOfTheConfiguredKeysIsDecidedByTheJWTRulesAlone() async throws {
        try await withEndpoint(Self.accepting) { endpoint in
            let authenticator = try both(endpoint.url())
            #expect(await outcome(authenticator, Mint.token(fixture.ec, claims: fixture.claims())) == "user alice")
            let expired = Mint.token(fixture.ec, claims: fixture.claims(["exp": JWTFixture.now - 3600]))
            #expect(await outcome(authenticator, expired) == "401 token_expired")
            let wrongAudience = Mint.token(fixture.rsa, claims: fixture.claims(["aud": "other"]))
            #expect(await outcome(authenticator, wrongAudience) == "401 invalid_audience")
            #expect(endpoint.calls == 0)
        }
    }

    @Test func withBothAJWTNoConfiguredKeyMadeGoesToTheWebhook() async throws {
        try await withEndpoint(Self.accepting) { endpoint in
            let authenticator = try both(endpoint.url())
            #expect(
                await outcome(authenticator, Mint.token(fixture.strangerRSA, claims: fixture.claims()))
                    == "user from-webhook"
            )
            #expect(
                await outcome(authenticator, Mint.token(fixture.strangerEC, claims: fixture.claims()))
                    == "user from-webhook"
            )
            let hs256 = Mint.token(header: ["alg": "HS256"], claims: fixture.claims()) { _ in
                Data(repeating: 1, count: 32)
            }
            #expect(await outcome(authenticator, hs256) == "user from-webhook")
            #expect(endpoint.calls == 3)
        }
    }

    @Test func withBothTheWebhooksRefusalNamesTheJWTReasonToo() async throws {
        try await withEndpoint({ _ in TestEndpoint.json(["authenticate": false]) }) { endpoint in
            let authenticator = try both(endpoint.url())
            let error = await #expect(throws: UserAuthError.self) {
                try await authenticator.userId(forBearer: Mint.token(fixture.strangerRSA, claims: fixture.claims()))
            }
            #expect(error?.code == "credential_refused")
            #expect(error?.message.contains("no key has kid 'rsa-9'") == true)
        }
    }

    @Test func eitherAloneDecidesEverything() async throws {
        try await withEndpoint(Self.accepting) { endpoint in
            let jwtOnly = try AppUserAuthenticator.make(
                for: .init(jwt: fixture.settings()),
                time: JWTFixture.clock(),
                logger: .disabled()
            )
            #expect(await outcome(jwtOnly, "opaque-session-token") == "401 invalid_token")
            let webhookOnly = try AppUserAuthenticator.make(
                for: .init(dittoAuthWebhook: .init(url: endpoint.url(), provider: "p")),
                logger: .disabled()
            )
            #expect(await outcome(webhookOnly, Mint.token(fixture.ec, claims: fixture.claims())) == "user from-webhook")
            #expect(endpoint.calls == 1)
        }
    }

    @Test func appsWithoutUserAuthGetNoCheck() throws {
        let apps = [
            Configuration.App(id: "plain", topic: "t", apiKeySHA256: []),
            Configuration.App(id: "chat", topic: "t", apiKeySHA256: [], userAuth: .init(jwt: fixture.settings())),
        ]
        let checks = try AppUserAuthenticator.make(apps: apps, logger: .disabled())
        #expect(Set(checks.keys) == ["chat"])
    }

    /// Key files that cannot be used stop the relay at start (and `config check`), each named by key path;
    /// so does a key of an algorithm the app's `algorithms` leave out, which no token could ever pass.
    @Test func unusableKeyFilesAreNamedByKeyPath() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let notPEM = try write("not.pem", "hello")
        let small = try write("small.pem", TestSigner.rsa(kid: nil, bits: 1024).publicPEM)
        let notJWKS = try write("not.json", #"{"keys": "x"}"#)
        let empty = try write("empty.json", #"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#)
        let app = { (id: String, jwt: Configuration.UserAuth.JWT) in
            Configuration.App(id: id, topic: "t", apiKeySHA256: [], userAuth: .init(jwt: jwt))
        }
        let apps = [
            app(
                "a",
                .init(publicKeyFiles: [fixture.pemFile, notPEM, small, folder.appendingPathComponent("gone").path])
            ),
            app("b", .init(jwksFile: notJWKS)),
            app("c", .init(jwksFile: empty)),
            // The PEM file holds an ES256 key; the JWKS file an ES256 and an RS256 one.
            app("d", .init(publicKeyFiles: [fixture.pemFile], algorithms: [.rs256])),
            app("e", .init(jwksFile: fixture.jwksFile, algorithms: [.es256])),
            app("f", .init(jwksFile: try write("ec.json", jwks([fixture.ec])), algorithms: [.rs256])),
        ]
        let error = #expect(throws: Configuration.Invalid.self) {
            _ = try AppUserAuthenticator.make(apps: apps, logger: .disabled())
        }
        let problems = error?.problems ?? []
        #expect(problems.count == 7)
        #expect(problems[0].hasPrefix("apps[0].userAuth.jwt.publicKeyFiles[1]: \(notPEM): not a PEM public key"))
        #expect(problems[1].hasPrefix("apps[0].userAuth.jwt.publicKeyFiles[2]: \(small): an RSA key of 1024 bits"))
        #expect(problems[2].hasPrefix("apps[0].userAuth.jwt.publicKeyFiles[3]: "))
        #expect(problems[3].hasPrefix("apps[1].userAuth.jwt.jwksFile: \(notJWKS): not a JWKS document"))
        #expect(problems[4] == "apps[2].userAuth.jwt.jwksFile: \(empty): holds no ES256 or RS256 key")
        #expect(
            problems[5] == "apps[3].userAuth.jwt.publicKeyFiles[0]: \(fixture.pemFile): an ES256 key, and algorithms "
                + "allows only RS256"
        )
        #expect(problems[6].hasPrefix("apps[5].userAuth.jwt.jwksFile: ") && problems[6].hasSuffix("holds no RS256 key"))
    }

    /// A JWKS document of `signers`' public keys.
    private func jwks(_ signers: [TestSigner]) throws -> String {
        String(decoding: try JSONEncoder().encode(JSONWebKeySet(keys: signers.map(\.jwk))), as: UTF8.self)
    }
}
