import Foundation
import RelayCore
import RelayCrypto

/// Turns a user's JWT into its user id with an app's `userAuth.jwt` rules (``JWTVerifier``): keys from PEM
/// files and a JWKS file, loaded at start, and from a JWKS URL (``RemoteKeySet``), fetched when first
/// needed.
public struct JWTAuthenticator: UserAuthenticator {
    /// The token's `error.code`s that say these rules cannot check it at all (not a JWT, an algorithm or a
    /// key they do not have, a signature none of their keys makes): with a webhook too, such a token goes
    /// there.
    public static let notOurs: Set<String> = [
        JWTError.Code.invalidToken, .unsignedToken, .unsupportedAlgorithm, .unknownKey, .algorithmMismatch,
        .invalidSignature,
    ].reduce(into: []) { $0.insert($1.description) }

    private let verifier: JWTVerifier
    private let keys: [PublicKey]
    private let remote: RemoteKeySet?
    private let time: any TimeSource
    private let logger: Logger

    /// Loads the key files of `settings`.
    /// - Parameter keyPath: where `settings` sits in the configuration, for problems (`apps[0].userAuth.jwt`).
    /// - Throws: ``RelayCore/Configuration/Invalid`` naming each key file that cannot be read, is not a PEM
    ///   public key of a kind taken, or is not a JWKS document with at least one such key; a key taken
    ///   must also sign with one of the `algorithms` allowed, or no token could ever pass it.
    public init(
        settings: Configuration.UserAuth.JWT,
        keyPath: String = "userAuth.jwt",
        time: any TimeSource = SystemTimeSource(),
        logger: Logger
    ) throws(Configuration.Invalid) {
        let algorithms = settings.algorithms ?? JWSAlgorithm.allCases
        let allowed = algorithms.map(\.rawValue).joined(separator: " or ")
        var keys: [PublicKey] = []
        var problems: [String] = []
        for (index, file) in settings.publicKeyFiles.enumerated() {
            do {
                let key = try PublicKey(pem: try Self.read(file))
                guard algorithms.contains(key.algorithm) else {
                    problems.append(
                        "\(keyPath).publicKeyFiles[\(index)]: \(file): an \(key.algorithm.rawValue) key, and algorithms "
                            + "allows only \(allowed)"
                    )
                    continue
                }
                keys.append(key)
            } catch {
                problems.append("\(keyPath).publicKeyFiles[\(index)]: \(file): \(error.message)")
            }
        }
        if let file = settings.jwksFile {
            do {
                let (all, skipped) = try JSONWebKeySet(json: Data(Self.read(file).utf8)).publicKeys()
                for reason in skipped { logger.warning("JWKS key passed over", ["jwks.file": file, "error": reason]) }
                let found = all.filter { algorithms.contains($0.algorithm) }
                if found.isEmpty { problems.append("\(keyPath).jwksFile: \(file): holds no \(allowed) key") }
                keys += found
            } catch {
                problems.append("\(keyPath).jwksFile: \(file): \(error.message)")
            }
        }
        guard problems.isEmpty else { throw Configuration.Invalid(problems) }
        self.keys = keys
        remote = settings.jwksURL.map { RemoteKeySet(url: $0, time: time, logger: logger) }
        verifier = JWTVerifier(
            rules: .init(
                issuer: settings.issuer,
                audience: settings.audience,
                leewaySeconds: settings.leewaySeconds,
                userIdClaim: settings.userIdClaim,
                algorithms: algorithms
            )
        )
        self.time = time
        self.logger = logger
    }

    /// A token is checked against the key files' keys and the JWKS URL's, which ``RemoteKeySet`` fetches at
    /// most once a minute (every ten seconds while it holds none), whatever the tokens.
    public var checksLocally: Bool { true }

    /// - Throws: ``UserAuthError`` 401 with the ``RelayCrypto/JWTError/Code`` of the rule the token breaks
    ///   (``UserAuthError/signatureVerified`` for a rule about its claims, read only once the signature
    ///   verified); 503 `auth_unavailable` when it needs the JWKS URL's keys and none could be fetched yet.
    public func userId(forBearer token: String) async throws(UserAuthError) -> String {
        let parsed: UnverifiedJWT
        do { parsed = try verifier.parse(token) } catch { throw refusal(error, token) }
        let keys = try await keys(for: parsed)
        do { try verifier.verifySignature(parsed, keys: keys) } catch { throw refusal(error, token) }
        do { return try verifier.checkClaims(of: parsed, now: time.now) } catch {
            throw refusal(error, token, signatureVerified: true)
        }
    }

    /// The keys to check `token` with: the files', and the JWKS URL's unless the token's `kid` is a file
    /// key's (such tokens then pass while the URL is down).
    private func keys(for token: UnverifiedJWT) async throws(UserAuthError) -> [PublicKey] {
        let kid = token.header.kid
        guard let remote, kid == nil || !keys.contains(where: { $0.keyId == kid }) else { return keys }
        return try await keys + remote.keys(forKid: kid)
    }

    private func refusal(_ error: JWTError, _ token: String, signatureVerified: Bool = false) -> UserAuthError {
        logger.debug("JWT refused", TokenDigest(token).logMetadata.merging(["error": "\(error)"]) { $1 })
        return UserAuthError(error, signatureVerified: signatureVerified)
    }

    /// A key file's text; a file that cannot be read is a ``RelayCrypto/CryptoError`` like a bad key.
    private static func read(_ file: String) throws(CryptoError) -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CryptoError(.invalidKey, "cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
