import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// The store's figures one relay reports (``Store/outboxCounts(now:)``) and the periodic lease that decides
/// which relay (``Store/holdPeriodicLease(job:owner:now:duration:)``), on every engine.
@Suite struct OutboxCountsTests {
    typealias F = StoreFixtures

    @Test(arguments: StoreKind.allCases) func theOutboxIsCountedByAppAndStateWithTheOldestDueTime(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        for n in 0..<10 { try await store.register(F.token(n), user: "u\(n)", at: F.time(-10)) }
        try await store.register(F.token(99), user: "b0", app: "app-b", at: F.time(-10))
        _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        _ = try await store.createNotification(
            F.notification(app: "app-b", at: F.time(5)),
            recipients: .init(roomId: "room-1")
        )

        // Before their due time nothing is due, nothing is late.
        #expect(
            try await store.outboxCounts(now: F.time(-1))
                == ["app-a": OutboxCounts(pending: 10), "app-b": OutboxCounts(pending: 1)]
        )
        let taken = try await store.claimDueDeliveries(
            appId: "app-a",
            now: F.time(1),
            limit: 4,
            leaseSeconds: 30,
            owner: F.owner
        ).map(\.deliveryId)
        #expect(taken.count == 4)
        #expect(
            try await store.outboxCounts(now: F.time(2))["app-a"]
                == OutboxCounts(pending: 10, due: 6, leased: 4, oldestDueAt: F.time(0))
        )
        // Two sent, one to be retried later: no longer leased, the retry not due before its time.
        try await store.complete(
            [(taken[0], .sent), (taken[1], .sent), (taken[2], .retry(at: F.time(100), status: 503, reason: "x"))],
            at: F.time(3)
        )
        let counts = try await store.outboxCounts(now: F.time(6))
        #expect(counts["app-a"] == OutboxCounts(pending: 8, due: 6, leased: 1, oldestDueAt: F.time(0)))
        #expect(counts["app-b"] == OutboxCounts(pending: 1, due: 1, leased: 0, oldestDueAt: F.time(5)))
        // The lease runs out at 31; the retry is due at 100.
        #expect(
            try await store.outboxCounts(now: F.time(40))["app-a"]
                == OutboxCounts(pending: 8, due: 7, leased: 0, oldestDueAt: F.time(0))
        )
        #expect(try await store.outboxCounts(now: F.time(200))["app-a"]?.due == 8)
    }

    @Test(arguments: StoreKind.allCases) func aPeriodicLeaseHasOneHolderUntilItRunsOutOrIsGivenUp(
        kind: StoreKind
    ) async throws {
        let database = try await kind.makeDatabase()
        let (a, b) = (try database.open(), try database.open())
        func hold(
            _ store: any Store,
            _ owner: String,
            at seconds: Double,
            for duration: Duration = .seconds(30)
        )
            async throws -> Bool
        {
            try await store.holdPeriodicLease(job: "gauges", owner: owner, now: F.time(seconds), duration: duration)
        }
        #expect(try await hold(a, F.owner, at: 0))
        #expect(!(try await hold(b, F.otherOwner, at: 10)))
        #expect(try await hold(a, F.owner, at: 20))  // renewed until 50
        #expect(!(try await hold(b, F.otherOwner, at: 45)))
        #expect(try await hold(b, F.otherOwner, at: 50))  // ran out: taken
        #expect(!(try await hold(a, F.owner, at: 51)))
        #expect(try await hold(b, F.otherOwner, at: 60, for: .zero))  // given up
        #expect(try await hold(a, F.owner, at: 60))
    }
}
