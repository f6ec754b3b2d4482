import Foundation
import RelayCrypto

/// A bearer token's SHA-256: the key it is cached under, and (its first 12 hex characters) how logs name
/// it. The token itself is never kept in a cache or written to a log.
struct TokenDigest: Hashable, Sendable {
    let bytes: Data

    init(_ token: String) { bytes = Digest.sha256(Data(token.utf8)) }

    /// The metadata key and value a log line names the token by.
    var logMetadata: [String: String] { ["token.sha256": String(bytes.hexString.prefix(12))] }
}
