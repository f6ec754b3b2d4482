import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1): `base64url(header).base64url(claims).base64url(signature)`,
/// for any header and claims JSON; the algorithm is the caller's (``RS256Key``, ``ES256Key``).
public struct CompactJWS: Sendable, Equatable {
    /// The header's JSON bytes.
    public var header: Data
    /// The claims' (payload's) JSON bytes.
    public var claims: Data
    /// `base64url(header).base64url(claims)`: the bytes the signature covers.
    public var signingInput: String
    /// The signature bytes.
    public var signature: Data
    /// The compact form: `signingInput.base64url(signature)`.
    public var compact: String { signingInput + "." + signature.base64URLEncodedString() }

    /// Encodes `header` and `claims` (sorted keys, no `\/`) and signs them with `sign`.
    /// - Throws: ``CryptoError`` `.operationFailed` when encoding fails, or what `sign` throws.
    public static func sign(
        header: some Encodable,
        claims: some Encodable,
        with sign: (Data) throws(CryptoError) -> Data
    ) throws(CryptoError) -> CompactJWS {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerData: Data, claimsData: Data
        do {
            headerData = try encoder.encode(header)
            claimsData = try encoder.encode(claims)
        } catch { throw CryptoError(.operationFailed, "encoding JWS: \(error)") }
        let input = headerData.base64URLEncodedString() + "." + claimsData.base64URLEncodedString()
        let signature = try sign(Data(input.utf8))
        return CompactJWS(header: headerData, claims: claimsData, signingInput: input, signature: signature)
    }

    /// Splits a compact JWS into its parts without checking the signature or reading the JSON.
    /// - Throws: ``CryptoError`` `.malformed` when it is not three base64url parts.
    public init(parsing compact: String) throws(CryptoError) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Data(base64URLEncoded: parts[0]),
            let claims = Data(base64URLEncoded: parts[1]), let signature = Data(base64URLEncoded: parts[2])
        else {
            throw CryptoError(.malformed, "not a compact JWS (three base64url parts separated by dots)")
        }
        self.init(header: header, claims: claims, signingInput: parts[0] + "." + parts[1], signature: signature)
    }

    private init(header: Data, claims: Data, signingInput: String, signature: Data) {
        self.header = header
        self.claims = claims
        self.signingInput = signingInput
        self.signature = signature
    }
}
