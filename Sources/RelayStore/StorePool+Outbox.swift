import Foundation
import RelayCore

/// The outbox's figures, badge updates and shared leases, each call on a free member (``StorePool``).
extension StorePool {
    public func finishedNotificationCounts(_ ids: [UUID]) async throws -> [UUID: DeliveryCounts] {
        try await call { try await $0.finishedNotificationCounts(ids) }
    }

    public func outboxCounts(now: Date) async throws -> [String: OutboxCounts] {
        try await call { try await $0.outboxCounts(now: now) }
    }

    public func appsWithDueBadgeUpdates(now: Date) async throws -> [String] {
        try await call { try await $0.appsWithDueBadgeUpdates(now: now) }
    }

    public func claimDueBadgeUpdates(
        appId: String,
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        owner: String
    ) async throws -> [BadgeUpdateJob] {
        try await call {
            try await $0.claimDueBadgeUpdates(
                appId: appId,
                now: now,
                limit: limit,
                leaseSeconds: leaseSeconds,
                owner: owner
            )
        }
    }

    public func completeBadgeUpdates(_ results: [(updateId: Int64, outcome: DeliveryOutcome)], at: Date) async throws {
        try await call { try await $0.completeBadgeUpdates(results, at: at) }
    }

    public func releaseBadgeUpdateClaims(_ updateIds: [Int64], owner: String) async throws {
        try await call { try await $0.releaseBadgeUpdateClaims(updateIds, owner: owner) }
    }

    public func holdPeriodicLease(job: String, owner: String, now: Date, duration: Duration) async throws -> Bool {
        try await call { try await $0.holdPeriodicLease(job: job, owner: owner, now: now, duration: duration) }
    }
}
