import FCMCore
import Foundation
import RelayCore
import RelayCrypto

/// The mock's OAuth 2.0 token endpoint: checks a service account's JWT-bearer assertion the way Google does
/// and answers an access token, or the OAuth error Google would give.
///
/// Rules (Google, "Using OAuth 2.0 for Server to Server Applications"; RFC 7523): a form-encoded POST with
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` (else 400 `unsupported_grant_type`) and
/// `assertion` (else 400 `invalid_request`); the assertion a compact JWS with header `alg` RS256 and `kid`
/// the account's key id, signed by the account's key, `iss` a known account (else 400 `invalid_grant`);
/// `aud` this endpoint's own URL (`<scheme>://<authority>/token`), `iat` not in the future (60 s of skew),
/// `exp` after `iat` by at most an hour and not passed (else 400 `invalid_grant`); `scope` holding the
/// messaging scope (else 400 `invalid_scope`).
struct TokenEndpoint {
    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }

    private struct Claims: Decodable {
        var iss: String
        var scope: String?
        var aud: String
        var iat: Int
        var exp: Int
    }

    private struct Granted: Encodable {
        var accessToken: String
        var expiresIn: Int
        var tokenType = "Bearer"

        private enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case tokenType = "token_type"
        }
    }

    /// Clock skew allowed on `iat`, in SECONDS.
    static let allowedSkew = 60

    /// The answer to one token request; on success the token is issued in `core`.
    /// - Parameters:
    ///   - audience: the URL the request was sent to, which `aud` must name.
    ///   - newToken: makes the access token's text.
    static func answer(body: [UInt8], audience: String, core: MockFCMCore, newToken: () -> String) -> MockAnswer {
        let form = Dictionary(
            (URLComponents(string: "?" + String(decoding: body, as: UTF8.self))?.queryItems ?? []).map {
                ($0.name, $0.value ?? "")
            }
        ) { first, _ in first }
        guard let grantType = form["grant_type"] else {
            return .oauthError(400, "invalid_request", "Missing required parameter: grant_type")
        }
        guard grantType == FCMLimits.jwtBearerGrantType else {
            return .oauthError(400, "unsupported_grant_type", "Invalid grant_type: \(grantType)")
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return .oauthError(400, "invalid_request", "Missing required parameter: assertion")
        }
        let account: MockFCMAccount
        let claims: Claims
        switch verify(assertion, core: core) {
        case .refused(let answer): return answer
        case .valid(let verifiedAccount, let verifiedClaims): (account, claims) = (verifiedAccount, verifiedClaims)
        }
        guard claims.aud == audience else {
            return .oauthError(400, "invalid_grant", "Invalid JWT: aud '\(claims.aud)' is not \(audience)")
        }
        let now = Int(core.configuration.timeSource.now.timeIntervalSince1970)
        guard claims.iat <= now + allowedSkew, claims.exp > now, claims.exp > claims.iat,
            claims.exp - claims.iat <= FCMLimits.maxAssertionLifetimeSeconds
        else {
            return .oauthError(
                400,
                "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                    + "Check your iat and exp values in the JWT claim."
            )
        }
        guard (claims.scope ?? "").split(separator: " ").contains(Substring(FCMLimits.messagingScope)) else {
            return .oauthError(400, "invalid_scope", "The scope does not include \(FCMLimits.messagingScope)")
        }
        let token = newToken()
        core.issueToken(for: account, value: token)
        let lifetime = Int(core.configuration.accessTokenLifetime.components.seconds)
        return .json(200, Granted(accessToken: token, expiresIn: lifetime))
    }

    private enum Verdict {
        case valid(MockFCMAccount, Claims)
        case refused(MockAnswer)
    }

    /// The assertion's account and claims when its header, issuer, key id and signature are right.
    private static func verify(_ assertion: String, core: MockFCMCore) -> Verdict {
        let decoder = JSONDecoder()
        guard let jws = try? CompactJWS(parsing: assertion),
            let header = try? decoder.decode(Header.self, from: jws.header),
            let claims = try? decoder.decode(Claims.self, from: jws.payload)
        else {
            return .refused(.oauthError(400, "invalid_grant", "Invalid JWT: the assertion is not a JWT"))
        }
        guard header.alg == "RS256" else {
            return .refused(.oauthError(400, "invalid_grant", "Invalid JWT: alg must be RS256"))
        }
        guard let account = core.accounts[claims.iss] else {
            return .refused(.oauthError(400, "invalid_grant", "Invalid grant: account not found"))
        }
        guard header.kid == account.keyId, account.publicKey.algorithm == .rs256,
            account.publicKey.verify(signature: jws.signature, for: Data(jws.signingInput.utf8))
        else {
            return .refused(.oauthError(400, "invalid_grant", "Invalid JWT Signature."))
        }
        return .valid(account, claims)
    }
}
