import Foundation
import RelayCrypto
import WebPushCore

/// A subscription's P-256 private key as PEM, the form the subscriptions directory keeps: SEC 1
/// `EC PRIVATE KEY` (RFC 5915: version 1, the 32-byte scalar, the prime256v1 OID, the public point), which
/// `openssl ec` and OpenSSL's PEM readers take.
///
/// Only this one DER layout is written and read back: the key's parameters are fixed (P-256), so the encoding
/// is a constant prefix around the scalar and the point. Reading checks OpenSSL loads the key and that the
/// point is the scalar's.
enum SubscriptionKeyPEM {
    private static let label = "EC PRIVATE KEY"
    /// SEQUENCE (119 bytes) { INTEGER 1, OCTET STRING (32 bytes) ...
    private static let beforeScalar: [UInt8] = [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20]
    /// ... [0] { OID 1.2.840.10045.3.1.7 }, [1] { BIT STRING (66 bytes, no unused bits) ...
    private static let beforePoint: [UInt8] = [
        0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0xA1, 0x44, 0x03, 0x42, 0x00,
    ]
    private static let derSize = beforeScalar.count + 32 + beforePoint.count + 65

    /// The key as PEM text, lines of 64 base64 characters.
    static func pem(of key: KeyAgreementKey) -> String {
        let der = beforeScalar + [UInt8](key.rawPrivateKey) + beforePoint + [UInt8](key.publicKey)
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(body)\n-----END \(label)-----\n"
    }

    /// Reads what ``pem(of:)`` wrote.
    /// - Throws: ``WebPushError`` `.invalidKey` when the text is not such a P-256 key.
    static func key(fromPEM text: String) throws(WebPushError) -> KeyAgreementKey {
        func refuse(_ why: String) -> WebPushError { WebPushError(.invalidKey, "subscription key file: \(why)") }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "-----BEGIN \(label)-----", lines.last == "-----END \(label)-----",
            let der = Data(base64Encoded: lines.dropFirst().dropLast().joined()).map([UInt8].init),
            der.count == derSize, der.starts(with: beforeScalar),
            der[(beforeScalar.count + 32)...].starts(with: beforePoint)
        else { throw refuse("not a P-256 EC PRIVATE KEY in PEM") }
        // OpenSSL's own reading of the same text: a malformed key is refused here too.
        do { _ = try ES256Key(privateKeyPEM: text) } catch { throw refuse(error.message) }
        let scalar = der[beforeScalar.count..<(beforeScalar.count + 32)]
        let key = try KeyAgreementKey(rawPrivateKey: scalar)
        guard key.publicKey.elementsEqual(der.suffix(65)) else { throw refuse("the public point is not the key's") }
        return key
    }
}
