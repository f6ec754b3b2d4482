import Foundation
import RelayCore

/// A JWT read from its compact form (RFC 7519 §7.2) whose signature and claims are not checked yet:
/// ``JWTVerifier/parse(_:)`` makes one, ``JWTVerifier/verify(_:keys:now:)`` checks it.
public struct UnverifiedJWT: Sendable, Equatable {
    /// The JOSE header members the relay reads (RFC 7515 §4.1); others are ignored, and none of them ever
    /// makes the relay fetch or trust a key (`jku`, `jwk`, `x5u`).
    public struct Header: Decodable, Sendable, Equatable {
        public var alg: String
        public var kid: String?
        /// Extensions the token says must be understood; the relay understands none (RFC 7515 §4.1.11).
        public var crit: [String]?
    }

    public var header: Header
    /// The algorithm `alg` names, one the rules take.
    public var algorithm: JWSAlgorithm
    /// The claims' bytes (JSON), read only once the signature verified
    /// (``JWTVerifier/checkClaims(of:now:)``): a forged token costs no more than its header's reading and one
    /// signature check.
    public var payload: Data
    /// The bytes the signature covers.
    public var signingInput: String
    public var signature: Data
}
