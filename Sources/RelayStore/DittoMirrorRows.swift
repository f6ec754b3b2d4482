import Foundation
import RelayCore

/// What a store engine does to its Ditto mirror tables, each call one set-based statement or a few, all
/// inside the transaction of one batch (``DittoApplier`` decides what to call, so the rules live once).
package protocol DittoMirrorRows {
    /// Whether a user document's new read positions give its devices badge updates.
    var badgeUpdates: BadgeUpdateRule { get }
    /// Records `txnId` as the applied change of a mirrored document when it is higher than the one
    /// recorded, through one insert … on conflict update (concurrent appliers wait on the row). `removedAt`
    /// is set for a remove: the document's tombstone, written then (the retention job deletes it later).
    func recordDocument(
        appId: String,
        collection: String,
        id: String,
        txnId: UInt64,
        removedAt: Date?
    ) throws
        -> DittoDocumentWrite
    /// Replaces the mirrored room `room` of `collection` (a DM room when `isDirect`).
    func putRoom(appId: String, collection: String, room: DittoChatRoom, isDirect: Bool) throws
    /// Removes the mirrored room `id` of `collection`.
    func deleteRoom(appId: String, collection: String, id: String) throws
    /// Replaces the mirrored user (its name, subscription and mention rows).
    func putUser(appId: String, user: DittoChatUser) throws
    /// Removes the mirrored user `id` with its subscription and mention rows.
    func deleteUser(appId: String, id: String) throws
    /// Whether a mirrored room names `collection` as its `messagesId`.
    func isRoomMessageCollection(appId: String, collection: String) throws -> Bool
    /// Records message `id` as seen until `keepUntil`, unless it is already recorded.
    /// - Returns: nil when it was recorded now, else the txnId recorded with it.
    func markSeen(appId: String, messageId: String, txnId: UInt64, keepUntil: Date) throws -> UInt64?
    /// Deletes at most `limit` seen message ids kept until before `now`.
    func purgeSeen(before now: Date, limit: Int) throws
    /// The rooms `roomId` of `appId` as the mirror holds them (one per room collection holding that id, DM
    /// rooms first, then by collection name); none when it holds none (yet).
    func rooms(appId: String, roomId: String) throws -> [DittoMessageFacts.Room]
    /// The mirror's facts about `message` of `appId` in `room` (of ``rooms(appId:roomId:)``, read before): the
    /// sender's name, the room's subscribers and the users whose mentions list it.
    func facts(
        appId: String,
        message: DittoMessageRule.Message,
        room: DittoMessageFacts.Room?
    ) throws
        -> DittoMessageFacts
    /// Adds a message to its room's index, or marks an indexed one archived (never back).
    func indexMessage(appId: String, _ message: IndexedMessage) throws
    /// The sender and archived flag the index holds for message `key` of `roomId` (archived: an edit or a
    /// delete, which may have come first); nil when it holds none.
    func indexedMessage(appId: String, roomId: String, key: String) throws -> (senderId: String, isArchived: Bool)?
    /// Records `txnId` as `appId`'s pending requery when it is higher than the one recorded (insert … on
    /// conflict update), requested at `at`. A first one is recorded as none completed (-1), so that one at
    /// txnId 0 is pending too.
    /// - Returns: whether it was recorded (false: an equal or higher one was).
    func recordRequery(appId: String, txnId: UInt64, at: Date) throws -> Bool
    /// Removes the mirrored rooms of `collection` whose recorded txnId is below `txnId` and not removed.
    func deleteRooms(appId: String, collection: String, below txnId: UInt64) throws
    /// Removes the mirrored users (with their subscription and mention rows) of `collection` whose recorded
    /// txnId is below `txnId` and not removed.
    func deleteUsers(appId: String, collection: String, below txnId: UInt64) throws
    /// Tombstones (at `txnId`, written at `at`) the documents of `collection` whose recorded txnId is below
    /// `txnId` and not removed.
    /// - Returns: how many.
    func tombstoneDocuments(appId: String, collection: String, below txnId: UInt64, at: Date) throws -> Int
    /// Records the notification and its deliveries with the engine's notification code.
    /// - Returns: whether it was made (false: a notification with its message id exists).
    func insertNotification(_ n: NewNotification, recipients: RecipientSelection) throws -> Bool
    /// Ends the notification of `deletion`'s message when it was made at or after `notifiedSince`: its
    /// pending deliveries end `cancelled` (reason ``CancelReason/deleted``), and `removal(message)` (made
    /// from the notification's message) is recorded with one pending delivery, due at its creation, for each
    /// device whose delivery was sent and not yet removed; those deliveries keep `sent` with reason
    /// ``CancelReason/deleted``, so another delete of the message (a replay, or a second delete document)
    /// removes nothing twice. Nothing is recorded when no such delivery is left.
    /// - Returns: whether a removal was recorded; nil, changing nothing, when the notification's message is
    ///   not the deletion's: another room or sender. (The delete's collection is the room's: the applier
    ///   checks it before.)
    func deleteMessage(
        appId: String,
        deletion: DittoMessageRule.Deletion,
        notifiedSince: Date,
        at: Date,
        removal: (ChatMessage) -> NewNotification
    ) throws -> Bool?
    /// The first message of the JS edit chain `key` belongs to in `roomId`'s index (the message an edit
    /// replaced first), or `key` itself when it replaces none or the index does not hold it.
    func originalMessageKey(appId: String, roomId: String, key: String) throws -> String
    /// Gives the notification of `edit`'s message, made at or after `notifiedSince` in the edit's room by its
    /// sender, the edit's text (``MessageEditSQL``).
    /// - Returns: whether a notification took it.
    func editMessage(appId: String, edit: DittoMessageRule.Edit, notifiedSince: Date) throws -> Bool
}
