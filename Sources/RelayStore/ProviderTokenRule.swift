import Foundation
import RelayCore

/// When a store hands out its stored provider token instead of minting one
/// (``RelayCore/ProviderTokenCache/sharedProviderToken(teamId:keyId:replacing:freshAfter:signedByCaller:mint:)``).
package enum ProviderTokenRule {
    /// True when `stored` is not the token the caller replaces, its `iat` is at or after `freshAfter` (a
    /// future `iat`, from a relay whose clock runs ahead, counts as fresh) and the caller's key signed it.
    package static func usable(
        _ stored: IssuedProviderToken,
        replacing: String?,
        freshAfter: Date,
        signedByCaller: (String) -> Bool
    ) -> Bool {
        stored.token != replacing && stored.issuedAt >= Int(freshAfter.timeIntervalSince1970.rounded(.down))
            && signedByCaller(stored.token)
    }
}
