import Foundation
import RelayCore

/// Models read back from the text every store keeps them as (tokens with their platform, UUIDs).
package enum StoredValues {
    /// A stored token with its stored platform.
    /// - Throws: ``StoreError`` `.invalidData` when either is not valid.
    package static func token(_ text: String, platform: String) throws -> PushToken {
        guard let platform = Platform(rawValue: platform) else {
            throw StoreError(code: .invalidData, message: "stored platform '\(platform)' is unknown")
        }
        do { return try PushToken(parsing: text, platform: platform) } catch {
            throw StoreError(code: .invalidData, message: "stored token is invalid: \(error.description)")
        }
    }

    /// A stored UUID (canonical text).
    /// - Throws: ``StoreError`` `.invalidData` when it is not one.
    package static func uuid(_ text: String) throws -> UUID {
        guard let uuid = UUID(canonical: text) else {
            throw StoreError(code: .invalidData, message: "stored UUID '\(text)' is invalid")
        }
        return uuid
    }
}
