import Foundation
import RelayCore

/// A JWS in compact serialization (RFC 7515 §7.1): `base64url(header).base64url(payload).base64url(signature)`,
/// for any header and payload JSON. Parsing checks only the form; the algorithm and what the JSON means are the
/// caller's (``JWTVerifier``, ``JSONWebToken``, ``ES256Key``, ``RS256Key``).
public struct CompactJWS: Sendable, Equatable {
    /// The JOSE header's bytes (JSON).
    public var header: Data
    /// The payload's bytes (for a JWT, the claims as JSON).
    public var payload: Data
    /// The first two parts as sent, joined by `.`: the bytes the signature covers.
    public var signingInput: String
    /// The signature's bytes; empty for an unsecured JWS (`alg: none`).
    public var signature: Data
    /// The compact form: `signingInput.base64url(signature)`.
    public var compact: String { signingInput + "." + signature.base64URLEncodedString() }

    /// Encodes `header` and `payload` (sorted keys, no `\/`) and signs them with `sign`.
    /// - Throws: ``CryptoError`` `.operationFailed` when encoding fails, or what `sign` throws.
    public static func sign(
        header: some Encodable,
        payload: some Encodable,
        with sign: (Data) throws(CryptoError) -> Data
    ) throws(CryptoError) -> CompactJWS {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerData: Data, payloadData: Data
        do {
            headerData = try encoder.encode(header)
            payloadData = try encoder.encode(payload)
        } catch { throw CryptoError(.operationFailed, "encoding JWS: \(error)") }
        let input = headerData.base64URLEncodedString() + "." + payloadData.base64URLEncodedString()
        let signature = try sign(Data(input.utf8))
        return CompactJWS(header: headerData, payload: payloadData, signingInput: input, signature: signature)
    }

    /// Splits `compact` into its parts without checking the signature or reading the JSON.
    /// - Throws: ``CryptoError`` `.malformed` unless it is three parts of base64url characters (RFC 4648 §5,
    ///   no padding: RFC 7515 §2) that decode, the first two not empty.
    public init(parsing compact: some StringProtocol) throws(CryptoError) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts.allSatisfy({ $0.utf8.allSatisfy(Self.isBase64URL) }),
            let header = Data(base64URLEncoded: parts[0]),
            let payload = Data(base64URLEncoded: parts[1]),
            let signature = Data(base64URLEncoded: parts[2])
        else {
            throw CryptoError(.malformed, "not a compact JWS (three base64url parts separated by dots)")
        }
        self.init(header: header, payload: payload, signingInput: parts[0] + "." + parts[1], signature: signature)
    }

    private init(header: Data, payload: Data, signingInput: String, signature: Data) {
        self.header = header
        self.payload = payload
        self.signingInput = signingInput
        self.signature = signature
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
