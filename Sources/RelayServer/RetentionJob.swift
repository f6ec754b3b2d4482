import Foundation
import RelayCore
import RelayOutbox
import RelayStore

/// Deletes the notifications none of whose deliveries is pending once they are older than
/// ``RelayCore/Configuration/Storage/retentionHours``, with their deliveries and idempotency keys, the
/// devices retired longer ago than that, the unread counts' indexed messages written longer ago than that
/// (older messages no longer count as unread), and each Ditto app's tombstones older than its
/// ``RelayCore/Configuration/Ditto/tombstoneRetentionHours``, in bounded batches. Runs at most once per
/// ``interval`` across every relay on the store (``RelayStore/Store/claimPeriodicRun(job:owner:now:interval:)``):
/// each relay asks every ``poll``, and only the one whose claim moves the next run forward deletes.
struct RetentionJob: Service {
    /// The job's name in the store's schedule.
    static let name = "notification-retention"
    /// How often the job runs, across relays.
    static let interval: Duration = .seconds(600)
    /// Notifications deleted per transaction.
    static let batchSize = 1000

    let store: any Store
    /// How long a finished notification is kept.
    let retention: Duration
    /// Who claims the runs (recorded in the schedule, for operators).
    let owner: String
    let time: any TimeSource
    let logger: Logger
    /// How often this relay asks whether the job is due.
    var poll: Duration = .seconds(60)
    /// How long each app with a stream keeps its tombstones, by app id.
    var tombstoneRetention: [String: Duration] = [:]

    /// Runs the job when it is due at the time source's now.
    /// - Returns: how many notifications were deleted; nil when the job was not due (another relay ran it).
    /// - Throws: the store's error (a later poll tries again once the run's interval has passed).
    func runIfDue() async throws -> Int? {
        let now = time.now
        guard try await store.claimPeriodicRun(job: Self.name, owner: owner, now: now, interval: Self.interval)
        else { return nil }
        let cutoff = now - retention.timeInterval
        let deleted = try await inBatches {
            try await store.deleteFinishedNotifications(createdBefore: cutoff, limit: $0)
        }
        if deleted > 0 { logger.info("deleted finished notifications", ["notifications": deleted]) }
        let devices = try await inBatches { try await store.deleteRetiredDevices(retiredBefore: cutoff, limit: $0) }
        if devices > 0 { logger.info("deleted retired devices", ["devices": devices]) }
        let messages = try await inBatches { try await store.deleteIndexedMessages(before: cutoff, limit: $0) }
        if messages > 0 { logger.info("deleted indexed messages", ["messages": messages]) }
        for (appId, kept) in tombstoneRetention.sorted(by: { $0.key < $1.key }) {
            let tombstones = try await inBatches {
                try await store.purgeDittoTombstones(appId: appId, removedBefore: now - kept.timeInterval, limit: $0)
            }
            if tombstones > 0 { logger.info("deleted Ditto tombstones", ["app.id": appId, "tombstones": tombstones]) }
        }
        return deleted
    }

    /// Runs `delete` with a limit of ``batchSize`` until a batch deletes fewer (or the task is cancelled).
    /// - Returns: how many were deleted in all.
    private func inBatches(_ delete: (Int) async throws -> Int) async throws -> Int {
        var deleted = 0
        while !Task.isCancelled {
            let batch = try await delete(Self.batchSize)
            deleted += batch
            if batch < Self.batchSize { break }
        }
        return deleted
    }

    /// Asks every ``poll`` until cancelled.
    func run() async {
        while !Task.isCancelled {
            do { _ = try await runIfDue() } catch {
                logger.storeCallFailed("retention run failed", error, level: .warning)
            }
            try? await Task.sleep(for: poll)
        }
    }
}
