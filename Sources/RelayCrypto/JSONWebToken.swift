import Foundation

/// The APNs provider token: a JWS (RFC 7515, compact form) signed with ES256.
///
/// Source: Apple, "Establishing a token-based connection to APNs": header `{"alg":"ES256","kid":<Key ID>}`,
/// claims `{"iss":<Team ID>,"iat":<epoch seconds>}`, no `exp`.
public struct JSONWebToken: Sendable, Equatable {
    public struct Header: Codable, Sendable, Equatable {
        public var alg: String
        public var kid: String
        public init(alg: String = "ES256", kid: String) {
            self.alg = alg
            self.kid = kid
        }
    }
    public struct Claims: Codable, Sendable, Equatable {
        /// Team ID.
        public var iss: String
        /// Issued at, UNIX epoch SECONDS.
        public var iat: Int
        public init(iss: String, iat: Int) {
            self.iss = iss
            self.iat = iat
        }
    }

    public var header: Header
    public var claims: Claims
    /// `base64url(header).base64url(claims)`: the bytes the signature covers.
    public var signingInput: String
    /// The raw R||S signature, 64 bytes.
    public var signature: Data
    /// The compact form: `signingInput.base64url(signature)`.
    public var compact: String { signingInput + "." + signature.base64URLEncodedString() }

    /// Mints and signs a provider token.
    /// - Throws: ``CryptoError`` when signing fails.
    public static func sign(
        keyId: String,
        teamId: String,
        issuedAt: Int,
        key: ES256Key
    ) throws(CryptoError)
        -> JSONWebToken
    {
        let header = Header(kid: keyId), claims = Claims(iss: teamId, iat: issuedAt)
        let jws = try CompactJWS.sign(header: header, payload: claims) { (input) throws(CryptoError) in
            try key.sign(input)
        }
        return JSONWebToken(header: header, claims: claims, signingInput: jws.signingInput, signature: jws.signature)
    }

    /// Reads a compact JWS without checking its signature (see ``verify(with:)``).
    /// - Throws: ``CryptoError`` `.malformed` when it is not three base64url parts of JSON header and claims.
    public init(parsing compact: String) throws(CryptoError) {
        let jws: CompactJWS
        do { jws = try CompactJWS(parsing: compact) } catch {
            throw CryptoError(.malformed, "provider token is not a compact JWS")
        }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: jws.header),
            let claims = try? decoder.decode(Claims.self, from: jws.payload)
        else {
            throw CryptoError(.malformed, "provider token header or claims are not the expected JSON")
        }
        self.init(header: header, claims: claims, signingInput: jws.signingInput, signature: jws.signature)
    }

    private init(header: Header, claims: Claims, signingInput: String, signature: Data) {
        self.header = header
        self.claims = claims
        self.signingInput = signingInput
        self.signature = signature
    }

    /// True when the algorithm is ES256 and the signature verifies under `key`.
    public func verify(with key: ES256Key) -> Bool {
        header.alg == "ES256" && key.verify(signature: signature, for: Data(signingInput.utf8))
    }
}

extension Data {
    /// base64url without padding (RFC 4648 §5), as JWS uses it.
    public func base64URLEncodedString() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding (RFC 4648 §5); nil when it is not base64url.
    public init?(base64URLEncoded text: some StringProtocol) {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        self.init(base64Encoded: standard)
    }
}
