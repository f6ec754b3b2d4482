import Foundation
import RelayAuth
import RelayCore
import RelayCrypto

/// The keys and files of an identity provider made for the JWT tests: an ES256 and an RS256 key in a JWKS
/// file (`ec-1`, `rsa-1`), a PEM key file without `kid`, and keys nobody configured.
final class JWTFixture: Sendable {
    static let shared = JWTFixture()
    static let now = 1_800_000_000
    static let issuer = "https://id.example.test/"
    static let audience = "chat-app"

    let ec = TestSigner.ec(kid: "ec-1")
    let rsa = TestSigner.rsa(kid: "rsa-1")
    /// In the PEM file: no `kid`.
    let pem = TestSigner.ec(kid: nil)
    /// Configured nowhere.
    let strangerEC = TestSigner.ec(kid: "ec-1")
    let strangerRSA = TestSigner.rsa(kid: "rsa-9")
    let pemFile: String
    let jwksFile: String

    private init() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        pemFile = folder.appendingPathComponent("idp.pem").path
        jwksFile = folder.appendingPathComponent("jwks.json").path
        try! Data(pem.publicPEM.utf8).write(to: URL(fileURLWithPath: pemFile))
        try! JSONEncoder().encode(JSONWebKeySet(keys: [ec.jwk, rsa.jwk])).write(to: URL(fileURLWithPath: jwksFile))
    }

    /// Claims that pass: user `alice`, this issuer and audience, issued 10 s ago, expiring in 10 minutes;
    /// `changes` replace claims, a nil removes one.
    func claims(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "sub": "alice", "iss": Self.issuer, "aud": Self.audience, "iat": Self.now - 10, "exp": Self.now + 600,
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// The rules of the tests' app, keys from the PEM and JWKS files (and a JWKS URL when given).
    func settings(jwksURL: String? = nil, algorithms: [JWSAlgorithm]? = nil) -> Configuration.UserAuth.JWT {
        .init(
            publicKeyFiles: [pemFile],
            jwksFile: jwksFile,
            jwksURL: jwksURL,
            issuer: Self.issuer,
            audience: Self.audience,
            algorithms: algorithms
        )
    }

    /// A clock at ``now``.
    static func clock() -> ManualTimeSource { ManualTimeSource(now: Date(timeIntervalSince1970: TimeInterval(now))) }

    func authenticator(
        jwksURL: String? = nil,
        algorithms: [JWSAlgorithm]? = nil,
        time: any TimeSource = JWTFixture.clock()
    ) throws -> JWTAuthenticator {
        try JWTAuthenticator(
            settings: settings(jwksURL: jwksURL, algorithms: algorithms),
            time: time,
            logger: .disabled()
        )
    }
}

/// What a bearer token comes to: a user id, or a refusal's status and code.
func outcome(_ authenticator: some UserAuthenticator, _ token: String) async -> String {
    do { return "user \(try await authenticator.userId(forBearer: token))" } catch {
        return "\(error.status) \(error.code)"
    }
}
