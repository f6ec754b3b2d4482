import Foundation

/// The `Authorization` header value of the `vapid` scheme (RFC 8292 §3): `vapid t=<JWT>, k=<key>`, the key
/// being the signer's P-256 public key as base64url of its uncompressed point.
public struct VAPIDAuthorization: Sendable, Hashable {
    /// The signed JWT, compact form.
    public var token: String
    /// The public key that verifies ``token``, base64url (no padding) of 65 bytes.
    public var publicKey: String

    /// The longest header value read, in bytes: a JWT with the three claims and a key are about 300.
    public static let maxLength = 4096

    public init(token: String, publicKey: String) {
        self.token = token
        self.publicKey = publicKey
    }

    /// The header value: `vapid t=<token>, k=<publicKey>`.
    public var headerValue: String { "vapid t=\(token), k=\(publicKey)" }

    /// Reads a header value: the scheme `vapid` (any case), then the parameters `t` and `k` (each once,
    /// comma-separated, optional spaces around `=` and `,`, quoted values taken); others are ignored.
    /// - Throws: ``WebPushError`` `.invalidCredentials` for another scheme, a missing or repeated `t` or
    ///   `k`, or a value longer than ``maxLength``.
    public init(parsing value: String) throws(WebPushError) {
        func refuse(_ why: String) -> WebPushError {
            WebPushError(.invalidCredentials, "Authorization \(why); expected vapid t=<JWT>, k=<public key>")
        }
        guard value.utf8.count <= Self.maxLength else { throw refuse("is longer than \(Self.maxLength) bytes") }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }),
            trimmed[..<space].lowercased() == "vapid"
        else { throw refuse("is not of the vapid scheme") }
        var parameters: [String: String] = [:]
        for part in trimmed[space...].split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, !pair[0].isEmpty else { throw refuse("has a parameter without a value") }
            var text = pair[1]
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                text = String(text.dropFirst().dropLast())
            }
            let name = pair[0].lowercased()
            guard parameters.updateValue(text, forKey: name) == nil else { throw refuse("repeats '\(name)'") }
        }
        guard let token = parameters["t"], !token.isEmpty else { throw refuse("has no t (the JWT)") }
        guard let key = parameters["k"], !key.isEmpty else { throw refuse("has no k (the public key)") }
        self.init(token: token, publicKey: key)
    }
}
