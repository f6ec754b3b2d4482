import Foundation

/// One app's outbox at a moment (``Store/outboxCounts(now:)``): how many deliveries are pending, how many of
/// those wait for a send slot and how many are being sent, and how late the oldest due one is.
public struct OutboxCounts: Sendable, Equatable {
    /// Deliveries not yet finished, due or not (a retry waiting for its back-off, a grace window).
    public var pending: Int
    /// Pending deliveries due at the moment that no relay holds a lease on.
    public var due: Int
    /// Pending deliveries leased to a relay (claimed, being sent).
    public var leased: Int
    /// The due time of the app's oldest pending delivery due at the moment, leased or not; nil when none is
    /// due. Lateness is measured from it: a back-off is not lateness.
    public var oldestDueAt: Date?

    public init(pending: Int = 0, due: Int = 0, leased: Int = 0, oldestDueAt: Date? = nil) {
        self.pending = pending
        self.due = due
        self.leased = leased
        self.oldestDueAt = oldestDueAt
    }
}
