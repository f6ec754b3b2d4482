import Foundation
import RelayCore

/// API keys: what a client sends as `Authorization: Bearer <key>`; the configuration stores only SHA-256.
public enum APIKey {
    /// A new key: ``RelayCore/Configuration/App/apiKeyPrefix``, then 32 random bytes as 64 lowercase hex
    /// characters. Any key the configuration holds the hash of is taken, whatever its form.
    /// - Throws: ``CryptoError`` when the random generator fails.
    public static func generate() throws(CryptoError) -> String {
        Configuration.App.apiKeyPrefix + (try Digest.randomBytes(32).hexString)
    }

    /// SHA-256 of the key's UTF-8 bytes, lowercase hex (the form `apps[].apiKeySHA256` holds).
    public static func hash(_ key: String) -> String {
        Digest.sha256(Data(key.utf8)).hexString
    }

    /// True when `key` hashes to one of `hashes`; every comparison takes the same time whatever matches.
    public static func matches(_ key: String, anyOf hashes: [String]) -> Bool {
        let digest = Digest.sha256(Data(key.utf8)).hexString
        var found = false
        for hash in hashes where Digest.constantTimeEqual(Data(digest.utf8), Data(hash.lowercased().utf8)) {
            found = true
        }
        return found
    }
}
