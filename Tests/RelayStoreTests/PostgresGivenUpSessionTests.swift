import Foundation
import RelayCore
import RelayTestSupport
import Synchronization
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// A statement given up at its deadline leaves its session running on the server until that statement
/// ends: the reconnect ends that session of its own, so the relay takes its instance lock back instead of
/// taking it for another process's (the fence).
@Suite struct PostgresGivenUpSessionTests {
    typealias F = StoreFixtures

    @Test func aSessionGivenUpWhileWaitingForALockLeavesTheRelayItsInstance() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let fenced = Mutex(0)
        let store = try PostgresStore.pool(url: url, size: 1, logger: .disabled(), statementTimeout: 1) { _ in
            fenced.withLock { $0 += 1 }
        }
        try await store.claimInstance(F.owner)
        let admin = try PostgresStore(url: url, logger: .disabled())
        let claimLock = "\(PostgresStore.claimLockClass), hashtext(current_schema() || '/' || 'app-a')"
        try await admin.execute("SELECT pg_advisory_lock(\(claimLock))")
        let claim = {
            try await store.claimDueDeliveries(appId: "app-a", now: F.t0, limit: 10, leaseSeconds: 60, owner: F.owner)
        }

        // Each claim waits for the admin's lock past its deadline: the first session's, then a new one's.
        for attempt in 1...2 {
            let error = await F.storeError { _ = try await claim() }
            #expect(error?.code == .io, "claim \(attempt): \(String(describing: error))")
        }
        try await admin.execute("SELECT pg_advisory_unlock(\(claimLock))")

        #expect(try await claim().isEmpty)
        #expect(fenced.withLock { $0 } == 0)
        let second = try PostgresStore(url: url, logger: .disabled())
        #expect(await F.storeError { try await second.claimInstance(F.owner) }?.code == .instanceInUse)
    }
}
