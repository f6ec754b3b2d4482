import Foundation
import RelayCore
import RelayStrictJSON

/// Checks a user's JWT (RFC 7519) and names its user: the compact form, the algorithm against the keys
/// (RFC 8725 §3.1: the key decides, never the token), the signature, then `exp` (required), `nbf`, `iat`,
/// `iss`, `aud` and the user id claim.
public struct JWTVerifier: Sendable {
    /// What a token must satisfy besides its signature.
    public struct Rules: Sendable, Equatable {
        /// The `iss` required; nil: any.
        public var issuer: String?
        /// A value `aud` must hold (the string, or one element of the array); nil: any.
        public var audience: String?
        /// Clock difference allowed for `exp`, `nbf` and `iat`, in SECONDS.
        public var leewaySeconds: Int
        /// The claim naming the user (a string within ``RelayCore/ChatMessage/idProblem(_:)``).
        public var userIdClaim: String
        /// The algorithms taken.
        public var algorithms: [JWSAlgorithm]

        public init(
            issuer: String? = nil,
            audience: String? = nil,
            leewaySeconds: Int = 60,
            userIdClaim: String = "sub",
            algorithms: [JWSAlgorithm] = JWSAlgorithm.allCases
        ) {
            self.issuer = issuer
            self.audience = audience
            self.leewaySeconds = leewaySeconds
            self.userIdClaim = userIdClaim
            self.algorithms = algorithms
        }
    }

    /// Tokens longer than this many BYTES are refused before they are parsed.
    public static let maxTokenBytes = 8192

    public var rules: Rules

    public init(rules: Rules) { self.rules = rules }

    /// Reads `token`'s header without checking its signature or reading its claims, and refuses what no key
    /// could check.
    /// - Throws: ``JWTError`` `tokenTooLarge`; `invalidToken` when it is not a compact JWS of a JSON header
    ///   with a string `alg`, or it has `crit`; `unsignedToken` for `alg: none`; `unsupportedAlgorithm` for
    ///   any other algorithm than the rules take.
    public func parse(_ token: String) throws(JWTError) -> UnverifiedJWT {
        guard token.utf8.count <= Self.maxTokenBytes else {
            throw JWTError(.tokenTooLarge, "the token is longer than \(Self.maxTokenBytes) bytes")
        }
        guard let parts = try? CompactJWS(parsing: token) else {
            throw JWTError(.invalidToken, "not a JWT: three base64url parts joined by '.' are expected")
        }
        try Self.checkStrict(parts.header, part: "header")
        guard let header = try? JSONDecoder().decode(UnverifiedJWT.Header.self, from: parts.header) else {
            throw JWTError(.invalidToken, "the JWT header is not a JSON object with a string 'alg'")
        }
        if let critical = header.crit {
            throw JWTError(
                .invalidToken,
                "the JWT needs header extensions understood ('crit': \(critical.joined(separator: ", "))); none are"
            )
        }
        let algorithm = try self.algorithm(header.alg)
        return UnverifiedJWT(
            header: header,
            algorithm: algorithm,
            payload: parts.payload,
            signingInput: parts.signingInput,
            signature: parts.signature
        )
    }

    /// Checks `token`'s signature with the key it names among `keys`, then its claims at `now`, and returns
    /// its user id. A `kid` that names keys picks among them; a token without `kid`, or one whose `kid`
    /// names none, is tried with the keys of its algorithm that have no `kid` (PEM keys), every key of its
    /// algorithm when it has no `kid` itself.
    /// - Throws: ``JWTError`` `unknownKey`, `algorithmMismatch`, `invalidSignature`, then what
    ///   ``checkClaims(of:now:)`` throws.
    public func verify(_ token: UnverifiedJWT, keys: [PublicKey], now: Date) throws(JWTError) -> String {
        try verifySignature(token, keys: keys)
        return try checkClaims(of: token, now: now)
    }

    /// The claims half of ``verify(_:keys:now:)``, for a token whose signature verified: reads its claims
    /// and checks them at `now` (``checkClaims(_:now:)``).
    /// - Throws: ``JWTError`` `invalidToken` when the claims are not a strict JSON object, then what
    ///   ``checkClaims(_:now:)`` throws.
    public func checkClaims(of token: UnverifiedJWT, now: Date) throws(JWTError) -> String {
        try Self.checkStrict(token.payload, part: "claims")
        guard let claims = try? JSONDecoder().decode([String: JSONValue].self, from: token.payload) else {
            throw JWTError(.invalidToken, "the JWT claims are not a JSON object")
        }
        return try checkClaims(claims, now: now)
    }

    /// RFC 7515 §4 (the header) and RFC 7519 §4 (the claims): a member named twice is refused, not read one
    /// way here and another way by the issuer or a proxy in front of the relay. The rule is a request body's:
    /// big integers and `\u0000` in strings pass, as Foundation reads them.
    private static func checkStrict(_ bytes: Data, part: String) throws(JWTError) {
        do throws(StrictJSON.Problem) {
            try StrictJSON.checkRequestBody(bytes)
        } catch {
            throw JWTError(.invalidToken, "the JWT \(part) is not strict JSON (\(error.withoutExcerpt))")
        }
    }

    /// The signature half of ``verify(_:keys:now:)``: checks `token`'s signature with the key it names among
    /// `keys`, claims unread.
    /// - Throws: ``JWTError`` `unknownKey`, `algorithmMismatch`, `invalidSignature`.
    public func verifySignature(_ token: UnverifiedJWT, keys: [PublicKey]) throws(JWTError) {
        let candidates = try self.candidates(for: token, among: keys)
        let input = Data(token.signingInput.utf8)
        guard candidates.contains(where: { $0.verify(signature: token.signature, for: input) }) else {
            throw JWTError(.invalidSignature, "the JWT's signature does not verify")
        }
    }

    /// ``parse(_:)`` and ``verify(_:keys:now:)`` in one.
    public func userId(from token: String, keys: [PublicKey], now: Date) throws(JWTError) -> String {
        try verify(try parse(token), keys: keys, now: now)
    }

    private func algorithm(_ alg: String) throws(JWTError) -> JWSAlgorithm {
        guard alg.lowercased() != "none" else {
            throw JWTError(.unsignedToken, "an unsigned JWT (alg 'none') is never taken")
        }
        guard let algorithm = JWSAlgorithm(rawValue: alg) else {
            let hint = alg.hasPrefix("HS") ? " (HMAC needs a shared secret; the relay holds public keys only)" : ""
            throw JWTError(.unsupportedAlgorithm, "alg '\(alg)' is not taken\(hint); ES256 and RS256 are")
        }
        guard rules.algorithms.contains(algorithm) else {
            throw JWTError(
                .unsupportedAlgorithm,
                "alg '\(alg)' is not taken by this app; "
                    + rules.algorithms.map(\.rawValue).joined(separator: " and ") + " are"
            )
        }
        return algorithm
    }

    private func candidates(for token: UnverifiedJWT, among keys: [PublicKey]) throws(JWTError) -> [PublicKey] {
        let kid = token.header.kid
        if let kid {
            let named = keys.filter { $0.keyId == kid }
            if !named.isEmpty {
                let fitting = named.filter { $0.algorithm == token.algorithm }
                guard !fitting.isEmpty else {
                    throw JWTError(
                        .algorithmMismatch,
                        "key '\(kid)' is \(named[0].kind), which does not check \(token.algorithm.rawValue)"
                    )
                }
                return fitting
            }
        }
        let fitting = keys.filter { $0.algorithm == token.algorithm && (kid == nil || $0.keyId == nil) }
        guard !fitting.isEmpty else {
            throw JWTError(
                .unknownKey,
                kid.map { "no key has kid '\($0)'" } ?? "no \(token.algorithm.rawValue) key is configured"
            )
        }
        return fitting
    }
}
