import Foundation
import RelayCore

/// The three parts of a compact JWS (RFC 7515 §7.1), each base64url-decoded; nothing else is checked.
public struct CompactJWS: Sendable, Equatable {
    /// The JOSE header's bytes (JSON).
    public var header: Data
    /// The payload's bytes (for a JWT, the claims as JSON).
    public var payload: Data
    /// The signature's bytes; empty for an unsecured JWS (`alg: none`).
    public var signature: Data
    /// The first two parts as sent, joined by `.`: the bytes the signature covers.
    public var signingInput: String

    /// Splits `compact` into its parts; nil unless it is three parts of base64url characters (RFC 4648 §5,
    /// no padding: RFC 7515 §2) that decode, the first two not empty.
    public init?(_ compact: some StringProtocol) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts.allSatisfy({ $0.utf8.allSatisfy(Self.isBase64URL) }),
            let header = Data(base64URLEncoded: parts[0]),
            let payload = Data(base64URLEncoded: parts[1]),
            let signature = Data(base64URLEncoded: parts[2])
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = parts[0] + "." + parts[1]
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
