import Foundation
import RelayCore

/// Where each app's read positions come from, and which apps' pushes carry the recipient's unread total.
///
/// The store starts with ``none``; the relay sets the policy from its configuration at start.
public struct UnreadPolicy: Sendable, Equatable {
    /// Apps with a Ditto stream (`apps[].ditto`): a user's read position of a room is its Ditto
    /// `subscriptions[roomId]`. Every other app's is its membership's (join time, moved by `markRead`).
    public var dittoAppIds: Set<String>
    /// Apps with `apps[].badge`: each job a claim returns carries its recipient's total (``RelayCore/DeliveryJob/badge``).
    public var badgeAppIds: Set<String>
    /// Each badge app's `badgeUpdateSeconds` (the fewest seconds between two badge updates to one device);
    /// a badge app missing here has ``defaultBadgeUpdateSeconds``.
    public var badgeUpdateSeconds: [String: Int]

    /// `apps[].badgeUpdateSeconds`' default.
    public static let defaultBadgeUpdateSeconds = 10

    public init(dittoAppIds: Set<String> = [], badgeAppIds: Set<String> = [], badgeUpdateSeconds: [String: Int] = [:]) {
        self.dittoAppIds = dittoAppIds
        self.badgeAppIds = badgeAppIds
        self.badgeUpdateSeconds = badgeUpdateSeconds
    }

    /// Positions from memberships for every app, no badges.
    public static let none = UnreadPolicy()

    /// The policy of `apps`.
    public init(apps: [Configuration.App]) {
        self.init(
            dittoAppIds: Set(apps.filter { $0.ditto != nil }.map(\.id)),
            badgeAppIds: Set(apps.filter(\.badge).map(\.id)),
            badgeUpdateSeconds: Dictionary(
                apps.filter(\.badge).map { ($0.id, $0.badgeUpdateSeconds) },
                uniquingKeysWith: { first, _ in first }
            )
        )
    }

    /// Whether the cached unread totals (`unread_totals`) of `appId` are kept: only a badge app's claims read
    /// them, so another app's messages, reads, levels and devices write none
    /// (``Store/dropUnreadTotalsNotKept()`` removes the rows an earlier policy left).
    package func keepsTotals(appId: String) -> Bool {
        badgeAppIds.contains(appId)
    }

    /// The apps ``keepsTotals(appId:)`` holds for, sorted.
    package var appsKeepingTotals: [String] { badgeAppIds.sorted() }

    /// The window between two badge updates to one device of `appId`, in MILLISECONDS; nil when the app
    /// has no badges (its users' reads send none).
    package func badgeUpdateMilliseconds(appId: String) -> Int64? {
        guard badgeAppIds.contains(appId) else { return nil }
        return Int64(badgeUpdateSeconds[appId] ?? Self.defaultBadgeUpdateSeconds) * 1000
    }

    /// `jobs` of `appId` with their badges when the app has them: each job's recipient (`userIds`, in the
    /// jobs' order) gets its total from `totals`, called once with the distinct recipients (a user with no
    /// unread message has 0).
    package func badged(
        _ jobs: [DeliveryJob],
        userIds: [String],
        appId: String,
        totals: ([String]) throws -> [String: Int]
    ) rethrows -> [DeliveryJob] {
        guard badgeAppIds.contains(appId), !jobs.isEmpty else { return jobs }
        let counts = try totals(Array(Set(userIds)).sorted())
        return zip(jobs, userIds).map { job, userId in
            var job = job
            job.badge = counts[userId] ?? 0
            return job
        }
    }
}
