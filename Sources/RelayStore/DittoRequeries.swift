import Foundation
import RelayCore

/// The store side of `requeryRequired`: each app's pending requery (recorded by
/// ``DittoMirror/applyDittoEvents(_:appId:settings:at:)``, keeping the highest txnId), the lease that lets one
/// relay at a time re-read the app's mirrored collections, the sweep after a collection's last page, and the
/// mark that the re-read completed. Several relays share these rows.
public protocol DittoRequeries: Sendable {
    /// The apps with a pending requery (one received and not completed), with its txnId.
    /// - Throws: ``StoreError``.
    func pendingDittoRequeries() async throws -> [String: UInt64]

    /// Takes, or renews, the lease on `appId`'s pending requery for `owner` until `now + leaseSeconds`: when
    /// it has no lease, `owner` holds it, or its holder's lease ran out (a relay that died).
    /// - Returns: the requery's txnId when `owner` holds the lease now; nil when none is pending or another
    ///   relay holds a live lease.
    /// - Throws: ``StoreError``.
    func claimDittoRequery(appId: String, owner: String, now: Date, leaseSeconds: Int) async throws -> UInt64?

    /// Removes, in ONE transaction, the mirrored documents of `collection` that a re-read at `txnId` did
    /// not find (``DittoApplier/sweep(_:below:)``'s rule).
    /// - Returns: how many were removed.
    /// - Throws: ``StoreError``.
    func sweepDittoCollection(
        _ collection: String,
        below txnId: UInt64,
        appId: String,
        settings: DittoApplySettings
    ) async throws -> Int

    /// Marks `appId`'s requery complete up to `txnId` (nil: the pending one, whatever its txnId: an operator
    /// who re-fed the collections by other means) and releases the lease. With an `owner`, only while that
    /// owner holds the lease.
    /// - Returns: the txnId of a requery still pending (a higher one arrived during the re-read), else nil.
    /// - Throws: ``StoreError``.
    func completeDittoRequery(appId: String, txnId: UInt64?, owner: String?) async throws -> UInt64?
}
