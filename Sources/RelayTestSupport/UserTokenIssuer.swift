import Foundation
import RelayCore
import RelayCrypto

/// An identity provider for tests: it signs ES256 user JWTs with a key of its own and gives the
/// `apps[].userAuth` that trusts them (its public key in a PEM file). Test-only: the key is made per process.
public final class UserTokenIssuer: Sendable {
    public let issuer = "https://auth.example.test"
    public let audience = "push-relay-tests"
    public let keyId = "user-key-1"
    /// The PEM file the public key is in.
    public let publicKeyFile: String
    private let signer: ES256Key

    /// One issuer for the whole test process.
    public static let shared: UserTokenIssuer = {
        do { return try UserTokenIssuer() } catch { fatalError("cannot make the test issuer: \(error)") }
    }()

    public init() throws {
        signer = try ES256Key.generate()
        publicKeyFile =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("relay-user-key-\(UUID().uuidString.lowercased()).pem").path
        try Data(signer.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: publicKeyFile))
    }

    /// The `userAuth` an app trusts this issuer's tokens with.
    public var userAuth: Configuration.UserAuth {
        Configuration.UserAuth(jwt: .init(publicKeyFiles: [publicKeyFile], issuer: issuer, audience: audience))
    }

    /// A JWT for `user`, valid for `seconds` from now (negative: already expired).
    public func token(for user: String, expiresIn seconds: Int = 3600) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "typ": "JWT", "kid": keyId])
        let claims = try JSONSerialization.data(
            withJSONObject: ["sub": user, "iss": issuer, "aud": audience, "iat": now, "exp": now + seconds]
        )
        let input = header.base64URLEncodedString() + "." + claims.base64URLEncodedString()
        return input + "." + (try signer.sign(Data(input.utf8))).base64URLEncodedString()
    }
}
