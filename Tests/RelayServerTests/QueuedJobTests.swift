import Foundation
import Testing

@testable import RelayCore
@testable import RelayOutbox
@testable import RelayStore

/// A claimed job's times, from its claim and the lease: the last moment its send may start, and which of its
/// results are recorded once the lease has ended.
@Suite struct QueuedJobTests {
    static let claimedAt = Date(timeIntervalSince1970: 1_000_000)

    static func queued() throws -> QueuedJob {
        var settings = Configuration.Delivery()
        settings.leaseSeconds = 120
        settings.requestTimeoutMilliseconds = 30_000
        let jobs = QueuedJob.claimed(
            [.delivery(try DeliveryLanesTests.job(1, app: "a"))],
            at: claimedAt,
            settings: settings
        )
        return try #require(jobs.first)
    }

    @Test func aJobIsStartedByOneRequestTimeoutBeforeItsLeaseEnds() throws {
        let queued = try Self.queued()
        #expect(queued.sendBy == Self.claimedAt.addingTimeInterval(90))
        #expect(queued.leaseEnds == Self.claimedAt.addingTimeInterval(120))
    }

    /// Past the lease, another relay may hold the job: a retry or a deferral would move its due time out of
    /// that lease, so it is not recorded; an outcome that ends the job is.
    @Test func pastItsLeaseOnlyAnOutcomeThatEndsTheJobIsRecorded() throws {
        let queued = try Self.queued()
        let (within, past) = (Self.claimedAt.addingTimeInterval(120), Self.claimedAt.addingTimeInterval(120.5))
        let retry = DeliveryOutcome.retry(at: past, status: 503, reason: "ServiceUnavailable")
        let deferred = DeliveryOutcome.deferred(at: past, status: nil, reason: nil)
        for outcome in [retry, deferred] {
            #expect(queued.records(outcome, at: within))
            #expect(!queued.records(outcome, at: past))
        }
        let ends: [DeliveryOutcome] = [
            .sent, .failed(status: 400, reason: "BadTopic"),
            .retired(status: 410, reason: "Unregistered", invalidSince: within),
        ]
        for outcome in ends { #expect(queued.records(outcome, at: past)) }
    }
}
