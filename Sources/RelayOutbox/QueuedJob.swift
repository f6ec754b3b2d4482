import Foundation
import RelayCore
import RelayStore

/// A claimed job waiting in ``DeliveryLanes``, with the latest time its send may start. Past its lease,
/// another relay may claim the job and send it too (as after this relay's process was stopped or frozen with
/// jobs queued), so a job not started by then is left unsent, for the next claim after its lease.
struct QueuedJob: LaneJob {
    var job: OutboxJob
    /// On the dispatcher's clock.
    var sendBy: Date
    /// When the job's lease ends, on the dispatcher's clock.
    var leaseEnds: Date

    var appId: String { job.appId }
    var platform: Platform { job.platform }

    /// Jobs claimed at `claimedAt` with `settings`' lease, each to be started by the time one request timeout
    /// before the lease ends, so that its answer comes within the lease. A lease shorter than two request
    /// timeouts (`config check` warns of one under three) still leaves every job the first half of it.
    static func claimed(_ jobs: [OutboxJob], at claimedAt: Date, settings: Configuration.Delivery) -> [QueuedJob] {
        let lease = TimeInterval(settings.leaseSeconds)
        let requestTimeout = TimeInterval(settings.requestTimeoutMilliseconds) / 1000
        let sendBy = claimedAt.addingTimeInterval(lease - min(requestTimeout, lease / 2))
        let leaseEnds = claimedAt.addingTimeInterval(lease)
        return jobs.map { QueuedJob(job: $0, sendBy: sendBy, leaseEnds: leaseEnds) }
    }

    /// Whether the store records `outcome`, come back at `now`. A retry or a deferral that comes back after the
    /// job's lease ended is not: another relay, or this one's next claim, may hold the job by then, and moving
    /// its due time would take it out of that lease, so it could go out once more beside the send in flight.
    /// The job stays due as the store has it. An outcome that ends it is recorded (the store keeps an end
    /// another relay recorded first, ``RelayStore/DeliveryStatus/takesResultSQL``).
    func records(_ outcome: DeliveryOutcome, at now: @autoclosure () -> Date) -> Bool {
        !outcome.isRetry || now() <= leaseEnds
    }
}
