import Foundation

/// A JWKS document (RFC 7517 §5): `{"keys": [JWK, ...]}`, read with JSONDecoder.
public struct JSONWebKeySet: Codable, Sendable, Equatable {
    public var keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) { self.keys = keys }

    /// Reads a JWKS document.
    /// - Throws: ``CryptoError`` `.malformed` when `data` is not a JSON object with a `keys` array of JWKs.
    public init(json data: Data) throws(CryptoError) {
        guard let set = try? JSONDecoder().decode(JSONWebKeySet.self, from: data) else {
            throw CryptoError(.malformed, "not a JWKS document: a JSON object with a \"keys\" array of JWKs")
        }
        self = set
    }

    /// The signature keys of the set, and why each other entry was passed over. Entries with another `kty`
    /// or a `use` other than `sig` are passed over silently (a set may hold encryption keys too).
    public func publicKeys() -> (keys: [PublicKey], skipped: [String]) {
        var keys: [PublicKey] = []
        var skipped: [String] = []
        for (index, jwk) in self.keys.enumerated()
        where ["EC", "RSA"].contains(jwk.kty) && (jwk.use ?? "sig") == "sig" {
            do {
                keys.append(try PublicKey(jwk: jwk))
            } catch {
                skipped.append("keys[\(index)]" + (jwk.kid.map { " (kid '\($0)')" } ?? "") + ": \(error.message)")
            }
        }
        return (keys, skipped)
    }
}
