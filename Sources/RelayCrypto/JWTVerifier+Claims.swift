import Foundation
import RelayCore

extension JWTVerifier {
    /// Checks the registered claims (RFC 7519 §4.1) at `now`, each time within the leeway, and returns the
    /// user id: `exp` required and not passed, `nbf` and `iat` not in the future, `iss` and `aud` as the
    /// rules ask, the user id claim a string within the id rule.
    /// - Throws: ``JWTError`` `missingClaim`, `invalidClaim`, `tokenExpired`, `tokenNotYetValid`,
    ///   `invalidIssuer` or `invalidAudience`.
    public func checkClaims(_ claims: [String: JSONValue], now: Date) throws(JWTError) -> String {
        let leeway = TimeInterval(rules.leewaySeconds)
        let time = now.timeIntervalSince1970
        guard let exp = try Self.numericDate(claims, "exp") else {
            throw JWTError(.missingClaim, "the JWT has no 'exp'; tokens without an expiry are not taken")
        }
        guard time < exp + leeway else {
            throw JWTError(.tokenExpired, "the JWT expired at \(Self.text(exp))")
        }
        if let nbf = try Self.numericDate(claims, "nbf"), time + leeway < nbf {
            throw JWTError(.tokenNotYetValid, "the JWT is not valid before \(Self.text(nbf))")
        }
        if let iat = try Self.numericDate(claims, "iat"), time + leeway < iat {
            throw JWTError(.tokenNotYetValid, "the JWT says it was issued in the future, at \(Self.text(iat))")
        }
        if let issuer = rules.issuer {
            guard let iss = claims["iss"] else { throw JWTError(.missingClaim, "the JWT has no 'iss'") }
            guard iss.string == issuer else {
                throw JWTError(.invalidIssuer, "the JWT's 'iss' is not this app's issuer")
            }
        }
        if let audience = rules.audience {
            guard let aud = claims["aud"] else { throw JWTError(.missingClaim, "the JWT has no 'aud'") }
            let audiences: [String?] = if case .array(let values) = aud { values.map(\.string) } else { [aud.string] }
            guard audiences.contains(audience) else {
                throw JWTError(.invalidAudience, "the JWT's 'aud' does not name this app's audience")
            }
        }
        let name = rules.userIdClaim
        guard let value = claims[name] else { throw JWTError(.missingClaim, "the JWT has no '\(name)' (the user id)") }
        guard let userId = value.string else {
            throw JWTError(.invalidClaim, "the JWT's '\(name)' (the user id) is not a string")
        }
        if let problem = ChatMessage.idProblem(userId) {
            throw JWTError(.invalidClaim, "the JWT's '\(name)' (the user id) \(problem)")
        }
        return userId
    }

    /// A NumericDate claim (RFC 7519 §2: seconds since 1970, a fraction allowed); nil when absent.
    private static func numericDate(_ claims: [String: JSONValue], _ name: String) throws(JWTError) -> Double? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.number else {
            throw JWTError(.invalidClaim, "the JWT's '\(name)' is not a number of seconds since 1970")
        }
        return seconds
    }

    private static func text(_ seconds: Double) -> String {
        // Far outside Date's range, the number itself says more than a clamped date.
        abs(seconds) < 1e11 ? Timestamp.rfc3339(Date(timeIntervalSince1970: seconds)) : "\(seconds)"
    }
}
