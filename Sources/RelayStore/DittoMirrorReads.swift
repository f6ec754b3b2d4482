import Foundation
import RelayCore

/// The store's reads of an app's Ditto mirror (the room endpoints of an app with a stream) and the
/// retention of its tombstones.
public protocol DittoMirrorReads: Sendable {
    /// The mirrored room `roomId` of `appId` as the message rule reads it (a DM room when both kinds hold
    /// that id); nil when the mirror has none.
    func dittoRoom(appId: String, roomId: String) async throws -> DittoMessageFacts.Room?

    /// A page of the users whose `subscriptions[roomId]` is set, by user id: at most `limit` (at least 1)
    /// from the `offset`-th (0 first).
    func dittoSubscribers(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [String]

    /// Whether `userId`'s `subscriptions[roomId]` is set.
    func isDittoSubscriber(appId: String, roomId: String, userId: String) async throws -> Bool

    /// Deletes up to `limit` tombstones of `appId` (documents a `remove` left) written before
    /// `removedBefore`, oldest first, in one statement. A replay of an event older than a deleted tombstone
    /// is applied again as if new.
    /// - Returns: how many were deleted (fewer than `limit`: no more were due).
    func purgeDittoTombstones(appId: String, removedBefore: Date, limit: Int) async throws -> Int
}
