import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// The cached unread totals on PostgreSQL when a message commits while the same user's total is recounted:
/// the recount waits for the message's row lock and counts it, so the message's +1 is never overwritten.
@Suite struct UnreadTotalsRaceTests {
    typealias F = StoreFixtures
    typealias U = UnreadStoreTests

    @Test func aRecountWaitingForAMessageCountsIt() async throws {
        let database = try await StoreKind.postgres.makeDatabase()
        let store = try database.open()
        let policy = UnreadPolicy(badgeAppIds: ["app-a"])
        await store.setUnreadPolicy(policy)
        try await store.register(F.token(1), user: "bob", rooms: ["room-1"])
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "alice", at: F.t0)
        try await U.post(store, from: "alice", at: 1)
        #expect(try await UnreadTotalsStoreTests.cached(store)["bob"] == 1)
        // Another relay indexes alice's next message: bob's row is updated (+1) and locked, not committed.
        let relay = try PostgresConnection(url: database.location, statementTimeout: 120)
        try relay.execute("BEGIN")
        let message = IndexedMessage(
            roomId: "room-1",
            key: "m-2",
            senderId: "alice",
            createdAt: F.time(2),
            isArchived: false
        )
        try PostgresStore.indexMessage(appId: "app-a", message, policy: policy, in: relay)
        // Bob's read (before both messages) recounts his total meanwhile; it waits for the row.
        let read = Task { try await store.markRead(appId: "app-a", roomId: "room-1", userId: "bob", at: F.time(0.5)) }
        let observer = try PostgresConnection(url: database.location, statementTimeout: 120)
        try await Self.waitForSessionBlocked(by: try relay.query("SELECT pg_backend_pid()")[0].int(0), on: observer)
        try relay.execute("COMMIT")
        _ = try await read.value
        #expect(try await U.unread(store, "bob").total == 2)
        #expect(try await UnreadTotalsStoreTests.cached(store)["bob"] == 2)
    }

    /// Waits (up to 120 s) until a session waits for a lock that backend `pid` holds.
    static func waitForSessionBlocked(by pid: Int, on db: PostgresConnection) async throws {
        for _ in 0..<1200 {
            let waiting = try db.query(
                "SELECT count(*) FROM pg_stat_activity WHERE $1::integer = ANY (pg_blocking_pids(pid))",
                pid
            )[0].int(0)
            if waiting > 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("no recount waited for the message's lock")
    }
}
