import Foundation
import RelayCore

/// A claimed job waiting in ``DeliveryLanes``, with the latest time its send may start. Past its lease,
/// another relay may claim the job and send it too (as after this relay's process was stopped or frozen with
/// jobs queued), so a job not started by then is left unsent, for the next claim after its lease.
struct QueuedJob: LaneJob {
    var job: OutboxJob
    /// On the dispatcher's clock.
    var sendBy: Date

    var appId: String { job.appId }
    var platform: Platform { job.platform }

    /// Jobs claimed at `claimedAt` with `settings`' lease, each to be started by the time one request timeout
    /// before the lease ends, so that its answer comes within the lease. A lease shorter than two request
    /// timeouts (`config check` warns of one under three) still leaves every job the first half of it.
    static func claimed(_ jobs: [OutboxJob], at claimedAt: Date, settings: Configuration.Delivery) -> [QueuedJob] {
        let lease = TimeInterval(settings.leaseSeconds)
        let requestTimeout = TimeInterval(settings.requestTimeoutMilliseconds) / 1000
        let sendBy = claimedAt.addingTimeInterval(lease - min(requestTimeout, lease / 2))
        return jobs.map { QueuedJob(job: $0, sendBy: sendBy) }
    }
}
