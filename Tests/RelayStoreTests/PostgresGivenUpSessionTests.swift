import Foundation
import RelayCore
import RelayTestSupport
import Synchronization
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// A statement given up at its deadline leaves its session running on the server until that statement
/// ends: the session ends then, not at the connection's next call; the server ends the statement a second
/// after the relay's deadline; and the reconnect ends a given-up session that still holds the relay's
/// instance lock (one whose statement only started when a frozen server resumed), so the relay takes the
/// lock back instead of taking it for another process's (the fence).
@Suite struct PostgresGivenUpSessionTests {
    typealias F = StoreFixtures

    /// A claim given up while waiting for the claim lock: its session, once it has the lock, would sit idle
    /// in the claim's transaction and hold the lock until the store's next call.
    @Test func aSessionGivenUpEndsWhenItsStatementDoes() async throws {
        let claim = try await GivenUpClaim.start()
        try await claim.admin.execute("SELECT pg_advisory_unlock(\(claim.lock))")
        #expect(try await claim.sessionEnds(), "session \(claim.pid) still runs")
        #expect(try await claim.admin.count("SELECT pg_try_advisory_lock(\(claim.lock))::integer") == 1)
    }

    /// A claim given up while the claim lock stays taken: the server ends its statement a second after the
    /// relay's deadline, and the session with it (its socket is shut), instead of waiting for the lock.
    @Test func aStatementGivenUpEndsOnTheServerToo() async throws {
        let claim = try await GivenUpClaim.start()
        #expect(try await claim.sessionEnds(), "session \(claim.pid) still runs")
        try await claim.admin.execute("SELECT pg_advisory_unlock(\(claim.lock))")
    }

    @Test func aSessionGivenUpWhileWaitingForALockLeavesTheRelayItsInstance() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let fenced = Mutex(0)
        let store = try PostgresStore.pool(url: url, size: 1, logger: .disabled(), statementTimeout: 1) { _ in
            fenced.withLock { $0 += 1 }
        }
        try await store.claimInstance(F.owner)
        let admin = try PostgresStore(url: url, logger: .disabled())
        let claimLock = PostgresStore.claimLockKeys(app: "'app-a'")
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

/// A claim of a store whose statements may take 1 s, given up while another session (`admin`) holds the
/// claim lock.
private struct GivenUpClaim {
    /// The store that gave the claim up, kept open: closing it would end its session.
    let store: PostgresStore
    let admin: PostgresStore
    /// The claim lock's keys, as `pg_advisory_lock` takes them.
    let lock: String
    /// The server process of the given-up session.
    let pid: Int32

    static func start() async throws -> GivenUpClaim {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let store = try PostgresStore(url: url, logger: .disabled(), statementTimeout: 1)
        let admin = try PostgresStore(url: url, logger: .disabled())
        let lock = PostgresStore.claimLockKeys(app: "'app-a'")
        try await admin.execute("SELECT pg_advisory_lock(\(lock))")
        let given = await StoreFixtures.storeError {
            _ = try await store.claimDueDeliveries(
                appId: "app-a",
                now: StoreFixtures.t0,
                limit: 10,
                leaseSeconds: 60,
                owner: StoreFixtures.owner
            )
        }
        #expect(given?.code == .io)
        return GivenUpClaim(store: store, admin: admin, lock: lock, pid: await store.backendPID())
    }

    /// Whether the given-up session leaves `pg_stat_activity` within 30 s.
    func sessionEnds() async throws -> Bool {
        for _ in 0..<300 {
            if try await admin.count("SELECT count(*)::integer FROM pg_stat_activity WHERE pid = \(pid)") == 0 {
                return true
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

extension PostgresStore {
    /// The server process of the store's session.
    func backendPID() -> Int32 { db.backendPID }

    /// The first column of `sql`'s first row, an integer (tests).
    func count(_ sql: String) throws -> Int { try db.query(sql)[0].int(0) }
}
