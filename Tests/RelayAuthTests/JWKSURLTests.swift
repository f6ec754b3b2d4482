import Foundation
import RelayAuth
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayTestSupport
import Synchronization
import Testing

/// The JWKS URL, served by a real HTTP server on loopback that counts its GETs; time is a manual clock.
@Suite struct JWKSURLTests {
    let fixture = JWTFixture.shared
    static let k1 = TestSigner.ec(kid: "url-1")
    static let k2 = TestSigner.rsa(kid: "url-2")
    static let strangerRSA = TestSigner.rsa(kid: "url-8")
    var k1: TestSigner { Self.k1 }
    var k2: TestSigner { Self.k2 }

    /// Serves `keys` as a JWKS document.
    static func serving(_ keys: [TestSigner]) -> TestEndpoint.Answer {
        let body = try! JSONEncoder().encode(JSONWebKeySet(keys: keys.map(\.jwk)))
        return { request in
            guard request.method == "GET" else { return HTTPResponse(status: 405) }
            return HTTPResponse(status: 200, headers: [("content-type", "application/json")], body: body)
        }
    }

    @Test func theDocumentIsFetchedAtFirstUseAndKept() async throws {
        try await withEndpoint(Self.serving([k1])) { endpoint in
            let authenticator = try fixture.authenticator(jwksURL: endpoint.url("jwks"))
            #expect(endpoint.calls == 0)
            let token = Mint.token(k1, claims: fixture.claims())
            #expect(await outcome(authenticator, token) == "user alice")
            #expect(await outcome(authenticator, token) == "user alice")
            #expect(endpoint.calls == 1)
            #expect(endpoint.requests.first?.path == "/jwks")
        }
    }

    @Test func aNewKidIsFoundByARefetchAtMostOnceAMinute() async throws {
        try await withEndpoint(Self.serving([k1])) { endpoint in
            let time = JWTFixture.clock()
            let authenticator = try fixture.authenticator(jwksURL: endpoint.url(), time: time)
            #expect(await outcome(authenticator, Mint.token(k1, claims: fixture.claims())) == "user alice")
            endpoint.answer(Self.serving([k1, k2]))
            let rotated = Mint.token(k2, claims: fixture.claims())
            // Fetched less than a minute ago: the new kid waits.
            #expect(await outcome(authenticator, rotated) == "401 unknown_key")
            #expect(endpoint.calls == 1)
            time.advance(by: .seconds(61))
            #expect(await outcome(authenticator, rotated) == "user alice")
            #expect(endpoint.calls == 2)
            // An unknown kid refetches once a minute at most, however often it comes.
            let unknown = Mint.token(fixture.strangerEC, claims: fixture.claims(), header: ["kid": "url-9"])
            #expect(await outcome(authenticator, unknown) == "401 invalid_signature")  // tried with the PEM key
            let unknownRSA = Mint.token(Self.strangerRSA, claims: fixture.claims())
            for _ in 0..<5 { #expect(await outcome(authenticator, unknownRSA) == "401 unknown_key") }
            #expect(endpoint.calls == 2)
            time.advance(by: .seconds(59))
            #expect(await outcome(authenticator, unknownRSA) == "401 unknown_key")
            #expect(endpoint.calls == 2)
            time.advance(by: .seconds(2))
            #expect(await outcome(authenticator, unknownRSA) == "401 unknown_key")
            #expect(endpoint.calls == 3)
        }
    }

    @Test func aURLThatIsDownIs503WithRetryAfterAndAskedAgainLater() async throws {
        try await withEndpoint({ _ in HTTPResponse(status: 500) }) { endpoint in
            let time = JWTFixture.clock()
            let authenticator = try fixture.authenticator(jwksURL: endpoint.url(), time: time)
            let token = Mint.token(k1, claims: fixture.claims())
            let error = await #expect(throws: UserAuthError.self) { try await authenticator.userId(forBearer: token) }
            #expect(error?.status == 503)
            #expect(error?.code == "auth_unavailable")
            #expect(error?.retryAfterSeconds == 10)
            // Within the retry interval requests are answered at once, without a call.
            time.advance(by: .seconds(4))
            let again = await #expect(throws: UserAuthError.self) { try await authenticator.userId(forBearer: token) }
            #expect(again?.retryAfterSeconds == 6)
            #expect(endpoint.calls == 1)
            endpoint.answer(Self.serving([k1]))
            time.advance(by: .seconds(6))
            #expect(await outcome(authenticator, token) == "user alice")
            #expect(endpoint.calls == 2)
        }
    }

    @Test func noServerAtTheURLIs503() async throws {
        let authenticator = try fixture.authenticator(jwksURL: try await TestEndpoint.closedURL())
        #expect(await outcome(authenticator, Mint.token(k1, claims: fixture.claims())) == "503 auth_unavailable")
        // Tokens the file keys check need no fetch: they pass while the URL is down.
        #expect(await outcome(authenticator, Mint.token(fixture.ec, claims: fixture.claims())) == "user alice")
    }

    @Test(arguments: [
        "not json", #"{"keys": "none"}"#, #"{"keys": []}"#,
        #"{"keys": [{"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"}]}"#,
    ])
    func aDocumentWithoutUsableKeysIs503(_ body: String) async throws {
        try await withEndpoint({ _ in HTTPResponse(status: 200, body: Data(body.utf8)) }) { endpoint in
            let authenticator = try fixture.authenticator(jwksURL: endpoint.url())
            #expect(await outcome(authenticator, Mint.token(k1, claims: fixture.claims())) == "503 auth_unavailable")
        }
    }

    @Test func keysFetchedBeforeAreKeptWhenARefetchFails() async throws {
        try await withEndpoint(Self.serving([k1])) { endpoint in
            let time = JWTFixture.clock()
            let authenticator = try fixture.authenticator(jwksURL: endpoint.url(), time: time)
            let token = Mint.token(k1, claims: fixture.claims())
            #expect(await outcome(authenticator, token) == "user alice")
            endpoint.answer { _ in HTTPResponse(status: 503) }
            time.advance(by: .seconds(61))
            #expect(await outcome(authenticator, Mint.token(k2, claims: fixture.claims())) == "401 unknown_key")
            #expect(endpoint.calls == 2)
            #expect(await outcome(authenticator, token) == "user alice")
        }
    }

    /// Keys an hour old are fetched again at the next use, so a key the issuer withdrew stops counting.
    @Test func aWithdrawnKeyStopsCountingAfterAnHour() async throws {
        try await withEndpoint(Self.serving([k1, k2])) { endpoint in
            let time = JWTFixture.clock()
            let authenticator = try fixture.authenticator(jwksURL: endpoint.url(), time: time)
            let withdrawn = Mint.token(k2, claims: fixture.claims(["exp": JWTFixture.now + 7200]))
            #expect(await outcome(authenticator, withdrawn) == "user alice")
            endpoint.answer(Self.serving([k1]))
            time.advance(by: .seconds(1800))
            #expect(await outcome(authenticator, withdrawn) == "user alice")
            time.advance(by: .seconds(1801))
            #expect(await outcome(authenticator, withdrawn) == "401 unknown_key")
            #expect(endpoint.calls == 2)
        }
    }

    /// Many requests needing the first fetch at once share one GET.
    @Test func concurrentFirstUsesShareOneFetch() async throws {
        let body = try JSONEncoder().encode(JSONWebKeySet(keys: [k1.jwk]))
        let gate = Gate()
        try await withEndpoint({ _ in
            await gate.wait()
            return HTTPResponse(status: 200, body: body)
        }) { endpoint in
            let authenticator = try fixture.authenticator(jwksURL: endpoint.url())
            let token = Mint.token(k1, claims: fixture.claims())
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { await outcome(authenticator, token) } }
                try await Task.sleep(for: .milliseconds(200))
                gate.open()
                for try await result in group { #expect(result == "user alice") }
            }
            #expect(endpoint.calls == 1)
        }
    }
}

/// Holds callers until ``open()``.
final class Gate: Sendable {
    private let opened = Mutex(false)

    func open() { opened.withLock { $0 = true } }

    func wait() async {
        while !opened.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
    }
}
