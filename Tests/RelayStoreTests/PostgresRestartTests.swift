import Foundation
import RelayCore
import RelayTestSupport
import Synchronization
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// A PostgreSQL server restarted as an operator does (`pg_ctl restart -m fast`, which ends every session):
/// idle connections are reopened on their next use without failing it, the instance lock is taken back by
/// its holder as soon as the server is back, and a relay whose lock another process took meanwhile stops.
@Suite struct PostgresRestartTests {
    typealias F = StoreFixtures

    @Test func callsOnIdleConnectionsSucceedAfterARestart() async throws {
        let cluster = try await PostgresCluster.dedicated()
        let url = try await cluster.newDatabaseURL()
        let pool = try PostgresStore.pool(url: url, size: 3, logger: .disabled())
        let single = try PostgresStore(url: url, logger: .disabled())
        try await pool.register(F.token(1), user: "u1")
        _ = try await single.device(appId: "app-a", token: F.token(1))

        try await cluster.restart()

        #expect(try await single.device(appId: "app-a", token: F.token(1))?.userId == "u1")
        try await single.register(F.token(2), user: "u2")
        // Side by side, so every member of the pool meets its ended session.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 3..<23 {
                group.addTask { try await pool.register(F.token(index), user: "u\(index)") }
            }
            try await group.waitForAll()
        }
        for index in 1..<23 {
            #expect(try await pool.device(appId: "app-a", token: F.token(index)) != nil)
        }
    }

    @Test func theHolderTakesItsInstanceLockBackAfterARestart() async throws {
        let cluster = try await PostgresCluster.dedicated()
        let url = try await cluster.newDatabaseURL()
        let first = try PostgresStore.pool(url: url, size: 2, logger: .disabled())
        try await first.claimInstance(F.owner)

        try await cluster.restart()
        // Taken back by the first store without any call of its own.
        #expect(try await Self.waitForHolders(url: url, id: F.owner) { $0 == 1 })

        let second = try PostgresStore(url: url, logger: .disabled())
        let refused = await F.storeError { try await second.claimInstance(F.owner) }
        #expect(refused?.code == .instanceInUse)
        try await first.register(F.token(1), user: "u1")
        #expect(try await first.device(appId: "app-a", token: F.token(1))?.userId == "u1")
        #expect(try await Self.holders(url: url, id: F.owner) == 1)
    }

    @Test func aRelayWhoseLockWasTakenMeanwhileStops() async throws {
        let cluster = try await PostgresCluster.dedicated()
        let url = try await cluster.newDatabaseURL()
        let memory = MemoryLogHandler()
        let fenced = FencedCalls()
        let first = try PostgresStore.pool(
            url: url,
            size: 2,
            logger: Logger(label: "test", level: .info, handler: memory)
        ) { error in fenced.errors.withLock { $0.append(error) } }
        try await first.claimInstance(F.owner)

        // Another process ends the holder's session and takes the lock in the same statement.
        let taker = try PostgresStore(url: url, logger: .disabled())
        var taken = false
        for _ in 0..<300 where !taken {
            taken = try await taker.terminateHolderAndLock(F.owner)
            if !taken { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(taken)

        var error: StoreError?
        for _ in 0..<300 {
            error = await F.storeError { _ = try await first.device(appId: "app-a", token: F.token(1)) }
            if error?.code == .instanceInUse { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(error?.code == .instanceInUse)
        #expect(error?.message.contains("'\(F.owner)'") == true)
        // Every member refuses, whatever the call.
        for _ in 0..<4 {
            #expect(await F.storeError { try await first.register(F.token(2), user: "u2") }?.code == .instanceInUse)
        }
        #expect(fenced.errors.withLock { $0.count } == 1)
        let critical = memory.entries.filter { $0.level == .critical }
        #expect(critical.count == 1)
        #expect(critical.first?.metadata["instance.id"] == F.owner)
        #expect(try await taker.ownsInstanceLock(F.owner))
    }

    /// How many sessions hold `id`'s instance lock, polled until `done` says so or 60 s passed.
    private static func waitForHolders(url: String, id: String, _ done: (Int) -> Bool) async throws -> Bool {
        for _ in 0..<300 {
            if done(try await holders(url: url, id: id)) { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// How many sessions hold `id`'s instance lock (read from `pg_locks` on a connection of its own).
    private static func holders(url: String, id: String) async throws -> Int {
        try await PostgresStoreTests.onThread {
            let connection = try PostgresConnection(url: url)
            return try connection.query(PostgresConnection.instanceHoldersSQL, id)[0].int(0)
        }
    }
}

/// The errors a pool's `onFenced` was called with.
private final class FencedCalls: Sendable {
    let errors = Mutex<[StoreError]>([])
}

extension PostgresStore {
    /// ``PostgresConnection/takeInstanceLockFromHolders(_:)`` on this store's connection.
    func terminateHolderAndLock(_ id: String) throws -> Bool { try db.takeInstanceLockFromHolders(id) }

    /// Whether this store's session holds `id`'s lock.
    func ownsInstanceLock(_ id: String) throws -> Bool {
        try db.query(PostgresConnection.instanceHoldersSQL + " AND pid = pg_backend_pid()", id)[0].int(0) == 1
    }
}
