import Foundation

/// When a user's read position moves, whether its devices get a badge update: with `apps[].badge`, when the
/// move lowered the user's unread total. Engines run it inside the transaction that moves the position
/// (a marker call, a Ditto user document), so the update is written with the read, and the user's cached
/// total (``UnreadSQL/refreshTotalsSQL(fromDitto:)``) is recounted there too.
package struct BadgeUpdateRule {
    package let policy: UnreadPolicy
    /// Whether the user has a live device an update can reach (``BadgeUpdateSQL/hasDevicesSQL``).
    package let hasDevices: (_ appId: String, _ userId: String) throws -> Bool
    /// The user's unread total in the app: its cached total, else counted
    /// (``UnreadSQL/cachedTotalsSQL``, ``UnreadSQL/totalsSQL(fromDitto:)``).
    package let total: (_ appId: String, _ userId: String) throws -> Int
    /// Recounts the user's cached total (``UnreadSQL/refreshTotalsSQL(fromDitto:)``).
    package let refresh: (_ appId: String, _ userId: String) throws -> Void
    /// Gives the user's live devices their pending update (``BadgeUpdateSQL/enqueueSQL``) with the
    /// window in MILLISECONDS.
    package let enqueue: (_ appId: String, _ userId: String, _ windowMilliseconds: Int64) throws -> Void

    package init(
        policy: UnreadPolicy,
        hasDevices: @escaping (String, String) throws -> Bool,
        total: @escaping (String, String) throws -> Int,
        refresh: @escaping (String, String) throws -> Void,
        enqueue: @escaping (String, String, Int64) throws -> Void
    ) {
        self.policy = policy
        self.hasDevices = hasDevices
        self.total = total
        self.refresh = refresh
        self.enqueue = enqueue
    }

    /// A rule that sends no badge updates and keeps no totals (a requery's sweep removes users: its rows
    /// recount them).
    package static var none: BadgeUpdateRule {
        BadgeUpdateRule(
            policy: .none,
            hasDevices: { _, _ in false },
            total: { _, _ in 0 },
            refresh: { _, _ in },
            enqueue: { _, _, _ in }
        )
    }

    /// Runs `move` (a change of the user's read positions), recounts the user's cached total and, for an app
    /// with badges whose user's total it lowered, enqueues the user's badge updates. Without badges, or for
    /// a user without a device to update, nothing is compared.
    package func moving<T>(appId: String, userId: String, _ move: () throws -> T) throws -> T {
        guard let window = policy.badgeUpdateMilliseconds(appId: appId), try hasDevices(appId, userId) else {
            let result = try move()
            try refresh(appId, userId)
            return result
        }
        let before = try total(appId, userId)
        let result = try move()
        try refresh(appId, userId)
        if before > 0, try total(appId, userId) < before { try enqueue(appId, userId, window) }
        return result
    }
}
