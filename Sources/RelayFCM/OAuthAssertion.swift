import FCMCore
import Foundation
import RelayCore
import RelayCrypto

/// The JWT a service account signs to ask for an access token (RFC 7523 §2.1, the JWT-bearer grant).
///
/// Source: Google, "Using OAuth 2.0 for Server to Server Applications": header `{"alg":"RS256","typ":"JWT",
/// "kid":<private_key_id>}`, claims `iss` = client_email, `scope`, `aud` = token_uri, `iat` = now, `exp` =
/// at most one hour later, signed RS256.
public struct OAuthAssertion: Sendable, Equatable {
    public struct Header: Codable, Sendable, Equatable {
        public var alg: String
        public var typ: String
        public var kid: String

        public init(alg: String = "RS256", typ: String = "JWT", kid: String) {
            self.alg = alg
            self.typ = typ
            self.kid = kid
        }
    }

    public struct Claims: Codable, Sendable, Equatable {
        /// The service account's `client_email`.
        public var iss: String
        /// Space-separated scopes; FCM needs ``FCMLimits/messagingScope``.
        public var scope: String
        /// The `token_uri` the assertion is sent to.
        public var aud: String
        /// Issued at, UNIX epoch SECONDS.
        public var iat: Int
        /// Expires at, UNIX epoch SECONDS: at most ``FCMLimits/maxAssertionLifetimeSeconds`` after `iat`.
        public var exp: Int

        public init(iss: String, scope: String, aud: String, iat: Int, exp: Int) {
            self.iss = iss
            self.scope = scope
            self.aud = aud
            self.iat = iat
            self.exp = exp
        }
    }

    public var header: Header
    public var claims: Claims
    /// The signed JWT, compact form.
    public var compact: String

    /// Signs an assertion for `account` issued at `now`, valid for the longest lifetime Google allows.
    /// - Throws: `CryptoError` when signing fails.
    public static func sign(for account: FCMServiceAccount, key: RS256Key, now: Date) throws(CryptoError) -> Self {
        let issuedAt = Int(now.timeIntervalSince1970)
        let header = Header(kid: account.privateKeyId)
        let claims = Claims(
            iss: account.clientEmail,
            scope: FCMLimits.messagingScope,
            aud: account.tokenURI,
            iat: issuedAt,
            exp: issuedAt + FCMLimits.maxAssertionLifetimeSeconds
        )
        let jws = try CompactJWS.sign(header: header, payload: claims) { (input) throws(CryptoError) in
            try key.sign(input)
        }
        return OAuthAssertion(header: header, claims: claims, compact: jws.compact)
    }

    /// The form-encoded body of the token request (`application/x-www-form-urlencoded`):
    /// `grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=<JWT>`.
    public var tokenRequestBody: Data {
        let pairs = [("grant_type", FCMLimits.jwtBearerGrantType), ("assertion", compact)]
        return Data(pairs.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&").utf8)
    }

    /// `value` with every character but RFC 3986's unreserved ones percent-encoded, as a form value.
    private static func formEncoded(_ value: String) -> String {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
