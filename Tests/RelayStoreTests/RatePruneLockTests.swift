import Foundation
import RelayTestSupport
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// A take's pruning of past minutes' push counts (of any sender) commits before the take waits on its user's
/// buckets: holding those rows while waiting let a take of the same user, already holding the buckets and
/// writing counts for the same recipients, wait on them in turn, a deadlock (PostgreSQL's 40P01, the webhook
/// answered 503).
@Suite struct RatePruneLockTests {
    @Test func pastCountsArePrunedBeforeTheBucketsAreWaitedOn() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        // Idle in its transaction for up to half its statement timeout: longer than this test waits.
        let holder = try PostgresStore(url: url, logger: .disabled(), statementTimeout: 60)
        let taker = try PostgresStore(url: url, logger: .disabled())
        let reader = try PostgresStore(url: url, logger: .disabled())
        let writes = UserRateRequest.Bucket(.writes, perMinute: 6000, burst: 1000)
        let now = Date()
        let seed = UserRateRequest(
            appId: "app-a",
            senderId: "alice",
            buckets: [writes],
            recipients: (1...150).map { "user-\($0)" },
            pushesPerRecipientPerMinute: 10
        )
        #expect(try await taker.takeUserRate(seed, at: now.addingTimeInterval(-120)) == nil)
        #expect(try await reader.rowCount("rate_pushes") == 150)
        // Another take of alice holds her buckets.
        try await holder.execute(
            "BEGIN; SELECT 1 FROM rate_buckets WHERE app_id = 'app-a' AND user_id = 'alice' FOR UPDATE"
        )
        let take = Task {
            try await taker.takeUserRate(
                UserRateRequest(appId: "app-a", senderId: "alice", buckets: [writes], recipients: ["bob"]),
                at: now
            )
        }
        let deadline = ContinuousClock.now + .seconds(20)
        var left = try await reader.rowCount("rate_pushes")
        while left == 150, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            left = try await reader.rowCount("rate_pushes")
        }
        // 100 of the past minute's counts are gone, committed, while the take still waits.
        #expect(left == 50)
        try await holder.execute("COMMIT")
        #expect(try await take.value == nil)
        #expect(try await reader.rowCount("rate_pushes") == 51)
    }
}
