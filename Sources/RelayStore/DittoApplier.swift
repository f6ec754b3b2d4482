import Foundation
import RelayCore

/// The rules of ``DittoMirror/applyDittoEvents(_:appId:settings:at:)`` in one place, over an engine's
/// ``DittoMirrorRows``, run inside the engine's transaction of one batch.
package struct DittoApplier<Rows: DittoMirrorRows> {
    /// How long past `maxMessageAgeSeconds` a seen message id is kept, in SECONDS: a replay that the age
    /// rule would still pass on a relay whose clock runs behind is still known.
    package static var clockSkewMarginSeconds: Int { 600 }
    /// How far ahead of the relay's clock a message's `createdOn` still extends how long its id is kept, in
    /// SECONDS: a day.
    package static var maxAheadSeconds: TimeInterval { 86_400 }
    /// Seen message ids deleted at most per batch, so a batch's work stays bounded.
    package static var purgeBatch: Int { 1000 }

    package let rows: Rows
    package let appId: String
    package let settings: DittoApplySettings
    package let at: Date

    package init(rows: Rows, appId: String, settings: DittoApplySettings, at: Date) {
        self.rows = rows
        self.appId = appId
        self.settings = settings
        self.at = at
    }

    /// The earliest a notification was made that a delete or an edit still changes: the app's TTL before
    /// the batch, when its pushes may still be shown.
    private var notifiedSince: Date { at.addingTimeInterval(-TimeInterval(settings.ttlSeconds)) }

    /// Applies `events` in order and counts their outcomes.
    package func apply(_ events: [DittoEvent]) throws -> DittoApplyCounts {
        var counts = DittoApplyCounts()
        try rows.purgeSeen(before: at, limit: Self.purgeBatch)
        for (index, event) in events.enumerated() {
            let (kind, outcome) = try apply(event, index: index, counting: &counts)
            counts.count(outcome, kind: kind)
        }
        return counts
    }

    /// Removes, after a requery's re-read of `collection` (a rooms, DM rooms or users collection) read every
    /// page at `txnId`, the mirrored documents of it that the re-read did not find: those whose recorded
    /// txnId is below `txnId` and that are not removed, tombstoned at `txnId` (an older replayed upsert
    /// cannot bring them back; a later change by a higher txnId still applies).
    /// - Returns: how many were removed.
    package func sweep(_ collection: String, below txnId: UInt64) throws -> Int {
        switch settings.rule.collections.kind(of: collection) {
        case .rooms?, .dmRooms?: try rows.deleteRooms(appId: appId, collection: collection, below: txnId)
        case .users?: try rows.deleteUsers(appId: appId, collection: collection, below: txnId)
        case .messages?, .dmMessages?, nil: return 0
        }
        return try rows.tombstoneDocuments(appId: appId, collection: collection, below: txnId, at: at)
    }

    /// One event's collection kind (nil: none) and outcome; a requery raised, and the batch's first
    /// unreadable message (the event's `index` in it), are noted in `counts`.
    private func apply(
        _ event: DittoEvent,
        index: Int,
        counting counts: inout DittoApplyCounts
    ) throws
        -> (DittoCollections.Kind?, DittoEventOutcome)
    {
        if event.kind == .requeryRequired {
            guard try rows.recordRequery(appId: appId, txnId: event.txnId, at: at) else { return (nil, .duplicate) }
            counts.requeries += 1
            counts.requeryTxnId = max(counts.requeryTxnId ?? 0, event.txnId)
            return (nil, .applied)
        }
        guard event.kind == .documentChanged, let collection = event.collection else { return (nil, .ignored) }
        let rule = settings.rule
        var kind = rule.collections.kind(of: collection)
        if kind == nil, try rows.isRoomMessageCollection(appId: appId, collection: collection) { kind = .messages }
        guard let kind else { return (nil, .ignored) }
        // A document without a string `_id` (``RelayCore/DittoEvent/change``): none of DittoChat's.
        guard let change = event.change else { return (kind, .invalid) }
        let document = change.document
        switch kind {
        case .messages, .dmMessages:
            guard case .upsert = change else { return (kind, .ignored) }
            // Its room (read once, for this check and the push's facts) decides first: a document outside the
            // room's collection is shown in no room, so it is neither indexed, nor a delete, nor a message.
            let roomId = DittoChatMessage(document).roomId.flatMap { ChatMessage.idProblem($0) == nil ? $0 : nil }
            let room = try roomId.flatMap { rule.room(of: collection, among: try rows.rooms(appId: appId, roomId: $0)) }
            guard rule.isReadByItsRoom(collection: collection, room: room) else { return (kind, .ignored) }
            if let deletion = settings.rule.deletion(document, now: at) {
                return (kind, try applyDeletion(deletion))
            }
            // An edit's text goes to its message's pushes still to be sent (none are kept in privacy mode): the
            // pushes of the chain's first message, when the edit names an earlier edit.
            if !settings.privacy, let edit = settings.rule.edit(document) {
                let original = try firstOfChain(edit.messageId, roomId: edit.roomId)
                _ = try rows.editMessage(appId: appId, edit: edit.naming(original), notifiedSince: notifiedSince)
            }
            // A document a push cannot read (a `text` that is not a string) is no message of DittoChat's:
            // neither pushed nor counted unread.
            let screened = settings.rule.screen(document, in: collection, now: at)
            let unreadable = if case .unreadable = screened { true } else { false }
            if !unreadable, let indexed = IndexedMessage(dittoDocument: document, arrival: at) {
                // An archive lowers the totals that counted the message (the JS SDK's delete archives the
                // original beside its delete document, in either order): their devices get badge updates.
                if indexed.isArchived {
                    try rows.badgeUpdates.archiving(appId: appId, roomId: indexed.roomId, key: indexed.key) {
                        try rows.indexMessage(appId: appId, indexed)
                    }
                } else {
                    try rows.indexMessage(appId: appId, indexed)
                }
            }
            let outcome: DittoEventOutcome
            switch screened {
            case .skip(let skipped): outcome = skipped
            case .unreadable(let field):
                if counts.unreadable == nil { counts.unreadable = DittoUnreadable(event: index, field: field.rawValue) }
                outcome = .invalid
            case .new(let message):
                outcome = try applyMessage(message, document, room: room, txnId: event.txnId)
            }
            return (kind, outcome)
        case .rooms, .dmRooms, .users:
            // An id no message, member or device can name (too long, blank, control characters) is not kept:
            // the mirror holds only what a push can use. Nor is a room whose `messagesId` names no collection
            // (``RelayCore/DittoChatRoom/namesNoCollection``): a collection name is an indexed column, and
            // PostgreSQL's index keeps no entry past about 2.7 kB. Such a version of a room is taken as its
            // removal (counted `ignored`), so a room mirrored before it is not kept as it was.
            guard ChatMessage.idProblem(document.id) == nil else { return (kind, .ignored) }
            var refused = false
            if kind != .users, case .upsert = change { refused = DittoChatRoom(document).namesNoCollection }
            let removed: Bool
            if case .remove = change { removed = true } else { removed = refused }
            let write = try rows.recordDocument(
                appId: appId,
                collection: collection,
                id: document.id,
                txnId: event.txnId,
                removedAt: removed ? at : nil
            )
            switch write {
            case .duplicate: return (kind, .duplicate)
            case .stale: return (kind, .ignored)
            case .applied: break
            }
            switch (kind, removed) {
            case (.users, false):
                let user = DittoChatUser(document).readDatesClamped(to: at)
                try rows.badgeUpdates.moving(appId: appId, userId: user.id) {
                    try rows.putUser(appId: appId, user: user)
                }
            case (.users, true):
                try rows.badgeUpdates.moving(appId: appId, userId: document.id) {
                    try rows.deleteUser(appId: appId, id: document.id)
                }
            case (_, false):
                try rows.putRoom(
                    appId: appId,
                    collection: collection,
                    room: DittoChatRoom(document),
                    isDirect: kind == .dmRooms
                )
            case (_, true): try rows.deleteRoom(appId: appId, collection: collection, id: document.id)
            }
            return (kind, refused ? .ignored : .applied)
        }
    }

    /// A delete document: the deleted message leaves its room's unread counts, and a notification of it made
    /// within the app's TTL is cancelled where pending and removed where it was sent. Only its author
    /// deletes a message (the JS SDK deletes one's own), in its room (from the room's collection, checked
    /// before): a delete whose room index or notification holds the message from another sender or room
    /// changes nothing (``DittoEventOutcome/ignored``). A delete of an edit (the JS SDK names the edit's own
    /// document) ends the notification of the edit chain's first message, the one pushed.
    private func applyDeletion(_ deletion: DittoMessageRule.Deletion) throws -> DittoEventOutcome {
        let indexed = try rows.indexedMessage(appId: appId, roomId: deletion.roomId, key: deletion.messageId)
        if let indexed, !indexed.senderId.isSameId(deletion.senderId) { return .ignored }
        let original = try deletion.naming(firstOfChain(deletion.messageId, roomId: deletion.roomId))
        let ended = try rows.deleteMessage(
            appId: appId,
            deletion: original,
            notifiedSince: notifiedSince,
            at: at
        ) { settings.removal(of: $0, deletion: original, appId: appId, at: at) }
        guard ended != nil else { return .ignored }
        try rows.badgeUpdates.archiving(appId: appId, roomId: deletion.roomId, key: deletion.messageId) {
            try rows.indexMessage(appId: appId, deletion.archivedIndexRow)
        }
        return .editOrDelete
    }

    /// The first message of the JS edit chain `key` is in, as the room index holds the chain: each edit's row
    /// names the first message known when it was indexed, so an edit read before the one it replaces names
    /// that one, and its first is looked up in turn (at most ``maxChainHops`` times).
    private func firstOfChain(_ key: String, roomId: String) throws -> String {
        var current = key
        for _ in 0..<Self.maxChainHops {
            let next = try rows.originalMessageKey(appId: appId, roomId: roomId, key: current)
            if next == current { break }
            current = next
        }
        return current
    }

    /// How many rows ``firstOfChain(_:roomId:)`` reads at most: a chain written out of order more often than
    /// this (or a cycle of forged documents) ends where it got to.
    private static var maxChainHops: Int { 16 }

    /// A new message (`document`, of its room's collection, as the rule screened it): seen once, and pushed
    /// to its recipients' devices.
    /// - Parameter room: the message's room as the mirror holds it, nil when it does not.
    private func applyMessage(
        _ message: DittoMessageRule.Message,
        _ document: DittoDocument,
        room: DittoMessageFacts.Room?,
        txnId: UInt64
    ) throws
        -> DittoEventOutcome
    {
        // Deleted before it arrived (the delete document came first): never pushed.
        if let indexed = try rows.indexedMessage(appId: appId, roomId: message.roomId, key: message.id),
            indexed.isArchived, indexed.senderId.isSameId(message.senderId)
        {
            return .editOrDelete
        }
        // Kept from the later of its written createdOn and now: a createdOn ahead of the relay's clock passes
        // the age rule for longer, and its id is kept as long; but from a day ahead at most, so a clock set
        // years ahead (anyone who writes to Ditto may set one) cannot keep a row for ever.
        let written = min(max(DittoChatMessage(document).createdOn ?? at, at), at + Self.maxAheadSeconds)
        let keep = TimeInterval(settings.rule.maxMessageAgeSeconds + Self.clockSkewMarginSeconds)
        if let seen = try rows.markSeen(
            appId: appId,
            messageId: message.id,
            txnId: txnId,
            keepUntil: written.addingTimeInterval(keep)
        ) {
            return seen == txnId ? .duplicate : .ignored
        }
        let push = settings.rule.push(for: message, facts: try rows.facts(appId: appId, message: message, room: room))
        let (notification, recipients) = settings.notification(
            of: push,
            appId: appId,
            messageAt: message.createdOn,
            at: at
        )
        return try rows.insertNotification(notification, recipients: recipients) ? .notified : .duplicate
    }
}
