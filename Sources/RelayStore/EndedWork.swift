import Foundation

/// What ``Store/endPendingWork(appId:at:)`` ended of one app: its pending deliveries (now `failed`, reason
/// ``reason``), its due badge updates (no longer due) and its queued dead-token feedback (deleted); and
/// whether the store knows the app at all.
public struct EndedWork: Sendable, Equatable {
    public var deliveries: Int
    public var badgeUpdates: Int
    public var feedback: Int
    /// Whether the store holds a device or a room member of the app: false for an id no relay ever wrote
    /// (a mistyped one), which had nothing to end either.
    public var appKnown: Bool

    public init(deliveries: Int, badgeUpdates: Int, feedback: Int, appKnown: Bool = true) {
        self.deliveries = deliveries
        self.badgeUpdates = badgeUpdates
        self.feedback = feedback
        self.appKnown = appKnown
    }

    /// The `lastReason` of a delivery ended this way.
    public static let reason = "AppRemoved"

    /// The statements, one per kind of work, in this order: parameter 1 the app id, 2 the time (epoch
    /// MILLISECONDS), 3 ``reason``; `parameter` spells parameter n in the engine's dialect. Each is counted by
    /// the rows it changes, but `known`, which answers 1 when the store knows the app (``appKnown``), else 0:
    /// two seeks of primary keys that start with the app id.
    package static func statements(
        parameter p: (Int) -> String
    ) -> (deliveries: String, badges: String, feedback: String, known: String) {
        (
            deliveries: """
            UPDATE deliveries SET status = 'failed', last_reason = \(p(3)), updated_at = \(p(2)),
                next_attempt_at = NULL
            WHERE app_id = \(p(1)) AND status = 'pending'
            """,
            badges: "UPDATE badge_updates SET due_at = NULL WHERE app_id = \(p(1)) AND due_at IS NOT NULL",
            feedback: "DELETE FROM feedback WHERE app_id = \(p(1))",
            known: """
            SELECT CASE WHEN EXISTS (SELECT 1 FROM devices WHERE app_id = \(p(1)))
                OR EXISTS (SELECT 1 FROM room_members WHERE app_id = \(p(1))) THEN 1 ELSE 0 END
            """
        )
    }
}
