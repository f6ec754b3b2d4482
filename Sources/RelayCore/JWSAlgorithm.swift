/// The JWS signature algorithms the relay verifies (RFC 7518 §3.1): ECDSA P-256 with SHA-256 (§3.4) and
/// RSASSA-PKCS1-v1_5 with SHA-256 (§3.3). Nothing else is taken: no `none`, no HMAC (`HS256` with a public
/// key as its secret would let anyone who has the public key sign).
public enum JWSAlgorithm: String, Sendable, Codable, ListedCases {
    case es256 = "ES256"
    case rs256 = "RS256"
}
