/// Why a JWT was refused. Each ``Code`` is the `error.code` of the API's 401 answer.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong. Open: more codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ description: String) { self.description = description }
        /// Longer than ``JWTVerifier/maxTokenBytes``; not parsed.
        public static let tokenTooLarge = Code("token_too_large")
        /// Not a compact JWS of a JSON header and JSON claims.
        public static let invalidToken = Code("invalid_token")
        /// `alg: none`: an unsigned token.
        public static let unsignedToken = Code("unsigned_token")
        /// An algorithm other than ES256 and RS256 (HMAC among them), or one the app does not take.
        public static let unsupportedAlgorithm = Code("unsupported_algorithm")
        /// No configured key for the token's `kid`, or none for its algorithm.
        public static let unknownKey = Code("unknown_key")
        /// The `kid` names a key of another type than `alg` needs.
        public static let algorithmMismatch = Code("algorithm_mismatch")
        /// The signature does not verify.
        public static let invalidSignature = Code("invalid_signature")
        /// `exp`, the user id claim, or an `iss` or `aud` the rules ask for, is absent.
        public static let missingClaim = Code("missing_claim")
        /// A claim of the wrong type, or a user id outside the id rule.
        public static let invalidClaim = Code("invalid_claim")
        /// `exp` has passed (beyond the leeway).
        public static let tokenExpired = Code("token_expired")
        /// `nbf` or `iat` lies in the future (beyond the leeway).
        public static let tokenNotYetValid = Code("token_not_yet_valid")
        /// `iss` is not the configured issuer.
        public static let invalidIssuer = Code("invalid_issuer")
        /// `aud` does not hold the configured audience.
        public static let invalidAudience = Code("invalid_audience")
    }

    public var code: Code
    /// Says what was wrong; never holds the token.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
