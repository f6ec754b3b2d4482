import Foundation
import RelayCore
import RelayOutbox
import RelayStore
import RelayTestSupport
import Testing

@testable import RelayPostgres

/// The store's figures count whole tables: a count that runs past its statement deadline (under a large
/// outbox on a loaded server; here the deliveries table locked by another session) fails that refresh but is
/// no sign of storage away, while any other call past its deadline is.
@Suite struct StoreGaugeHealthTests {
    @Test(.timeLimit(.minutes(3))) func aCountPastItsDeadlineIsNotStorageAway() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let lines = MemoryLogHandler()
        let pool = try PostgresStore.pool(
            url: url,
            size: 2,
            logger: Logger(label: "test", handler: lines),
            statementTimeout: 1
        )
        let reporter = StoreGaugeReporter(
            owner: "relay-a",
            store: pool,
            metrics: RelayMetrics(appIds: ["app-a"]),
            appIds: ["app-a"],
            time: SystemTimeSource(),
            logger: .disabled()
        )
        #expect(try await reporter.refresh())

        let locker = try PostgresConnection(url: url)
        try locker.execute("BEGIN")
        try locker.execute("LOCK TABLE deliveries IN ACCESS EXCLUSIVE MODE")
        let counted = await #expect(throws: StoreError.self) { try await reporter.refresh() }
        #expect(counted?.code == .io)
        #expect(!lines.entries.contains { $0.message == "storage unavailable" })

        let other = await #expect(throws: StoreError.self) { try await pool.outboxCounts(now: Date()) }
        try locker.execute("ROLLBACK")
        #expect(other?.code == .io)
        #expect(lines.entries.filter { $0.message.hasPrefix("storage") }.map(\.message) == ["storage unavailable"])
    }
}
