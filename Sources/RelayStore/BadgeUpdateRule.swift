import Foundation

/// When a change lowers users' unread totals, their devices get a badge update: with `apps[].badge`, every
/// change that lowers a total (a read, a level set to `none`, leaving a room, a deleted message) writes the
/// users' pending updates (``BadgeUpdateSQL/enqueueSQL``). Engines run it inside the transaction of the
/// change, so the update is written with it.
package struct BadgeUpdateRule {
    package let policy: UnreadPolicy
    /// Whether the user has a live device an update can reach (``BadgeUpdateSQL/hasDevicesSQL``).
    package let hasDevices: (_ appId: String, _ userId: String) throws -> Bool
    /// The user's unread total in the app (``UnreadSQL/totalsSQL(fromDitto:)``).
    package let total: (_ appId: String, _ userId: String) throws -> Int
    /// Gives the user's live devices their pending update (``BadgeUpdateSQL/enqueueSQL``) with the
    /// window in MILLISECONDS.
    package let enqueue: (_ appId: String, _ userId: String, _ windowMilliseconds: Int64) throws -> Void
    /// Gives the live devices of every user whose unread count in `roomId` holds indexed message `key` (nil:
    /// any message, among the members a close removes, of origin `user`) their pending update, in one
    /// statement (``BadgeUpdateSQL/enqueueSQL(users:)`` over
    /// ``UnreadSQL/countingUsersSQL(fromDitto:app:room:key:condition:)``).
    package let enqueueCounting:
        (_ appId: String, _ roomId: String, _ key: String?, _ windowMilliseconds: Int64) throws -> Void

    package init(
        policy: UnreadPolicy,
        hasDevices: @escaping (String, String) throws -> Bool,
        total: @escaping (String, String) throws -> Int,
        enqueue: @escaping (String, String, Int64) throws -> Void,
        enqueueCounting: @escaping (String, String, String?, Int64) throws -> Void
    ) {
        self.policy = policy
        self.hasDevices = hasDevices
        self.total = total
        self.enqueue = enqueue
        self.enqueueCounting = enqueueCounting
    }

    /// A rule that sends no badge updates (a requery's sweep removes users; it reads nothing).
    package static var none: BadgeUpdateRule {
        BadgeUpdateRule(
            policy: .none,
            hasDevices: { _, _ in false },
            total: { _, _ in 0 },
            enqueue: { _, _, _ in },
            enqueueCounting: { _, _, _, _ in }
        )
    }

    /// Runs `move` (a change of the user's read positions, levels or rooms) and, for an app with badges
    /// whose user's total it lowered, enqueues the user's badge updates. Without badges, or for a user
    /// without a device to update, only `move` runs: nothing is counted.
    package func moving<T>(appId: String, userId: String, _ move: () throws -> T) throws -> T {
        guard let window = policy.badgeUpdateMilliseconds(appId: appId), try hasDevices(appId, userId) else {
            return try move()
        }
        let before = try total(appId, userId)
        let result = try move()
        if before > 0, try total(appId, userId) < before { try enqueue(appId, userId, window) }
        return result
    }

    /// Runs `archive` (which archives indexed message `key` of `roomId`, a deleted message) and, for an app
    /// with badges, first gives the devices of every user the message counted for (their totals go down by
    /// it) their pending update: one set-based statement, never a loop over the room's users.
    package func archiving<T>(appId: String, roomId: String, key: String, _ archive: () throws -> T) throws -> T {
        if let window = policy.badgeUpdateMilliseconds(appId: appId) { try enqueueCounting(appId, roomId, key, window) }
        return try archive()
    }

    /// Runs `close` (which removes the members of origin `user` from `roomId`) and, for an app with badges,
    /// first gives the devices of those with unread messages there their pending update, in one statement.
    package func closing<T>(appId: String, roomId: String, _ close: () throws -> T) throws -> T {
        if let window = policy.badgeUpdateMilliseconds(appId: appId) { try enqueueCounting(appId, roomId, nil, window) }
        return try close()
    }
}
