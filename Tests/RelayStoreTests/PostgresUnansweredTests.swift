import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelayPostgres
@testable import RelayStore

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server that stops answering without closing its sockets (its processes stopped with
/// SIGSTOP, as a frozen host looks): store calls fail with `.io` after the client-side deadline instead
/// of hanging, and the store works again, with its data, once the server goes on.
@Suite struct PostgresUnansweredTests {
    typealias F = StoreFixtures

    @Test func aFrozenServerFailsCallsWithIOThenTheStoreReconnects() async throws {
        let cluster = try await PostgresCluster.dedicated()
        let url = try await cluster.newDatabaseURL() + "&connect_timeout=2"
        let store = try PostgresStore(url: url, logger: .disabled(), statementTimeout: 1)
        try await store.register(F.token(1), user: "u1")

        let frozen = try FrozenServer(dataDirectory: cluster.dataDirectory)
        defer { frozen.resume() }
        // The guard: a call that hangs is released by resuming the server, and then fails the expectation.
        let guardTask = Task {
            try await Task.sleep(for: .seconds(90))
            frozen.resume()
        }
        defer { guardTask.cancel() }

        let unanswered = await F.storeError { _ = try await store.device(appId: "app-a", token: F.token(1)) }
        #expect(unanswered?.code == .io)
        #expect(unanswered?.message.contains("did not answer within 1 s") == true)
        // A statement sent and never answered may have committed.
        #expect(unanswered?.committedNothing == false)
        // Reconnecting to the frozen server ends at the connect timeout; the call after fails at once.
        #expect(await F.storeError { try await store.register(F.token(2), user: "u2") }?.code == .io)
        #expect(await F.storeError { try await store.register(F.token(2), user: "u2") }?.code == .io)

        frozen.resume()
        var device: Device?
        for _ in 0..<100 {
            do {
                device = try await store.device(appId: "app-a", token: F.token(1))
                break
            } catch let error as StoreError where error.code == .io {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(device?.userId == "u1")
        try await store.register(F.token(3), user: "u3")
        #expect(try await store.device(appId: "app-a", token: F.token(3))?.userId == "u3")
    }

    /// A transaction whose server freezes midway surfaces `.io` without trying ROLLBACK there; the next
    /// statement reconnects, which fails at the connect timeout, and statements after a failed reconnect
    /// fail at once (within `reconnectPause`, here longer than the test) without trying again.
    @Test func aConnectionGivesUpAFrozenSessionAndFailsFastWhileDown() async throws {
        let cluster = try await PostgresCluster.dedicated()
        let url = try await cluster.newDatabaseURL() + "&connect_timeout=2"
        // The connection blocks its caller: on a thread of its own, off the cooperative pool.
        let (inTransaction, reconnect, whileDown, rows) = try await PostgresStoreTests.onThread {
            try Self.freezeMidTransaction(url: url, dataDirectory: cluster.dataDirectory)
        }
        #expect(inTransaction?.code == .io)
        #expect(inTransaction?.message.contains("did not answer within 1 s") == true)
        #expect(reconnect?.code == .io)
        #expect(reconnect?.message.hasPrefix("PQreset:") == true)
        #expect(whileDown?.code == .io)
        #expect(whileDown?.message.hasPrefix("PostgreSQL is unreachable") == true)
        #expect(rows == 0)
        // None of them committed anything, and each says so (a 503 then says nothing was recorded).
        #expect([inTransaction, reconnect, whileDown].allSatisfy { $0?.committedNothing == true })
    }

    /// Runs a transaction whose server freezes midway, then two statements while it is frozen; returns
    /// their errors and, after the server went on, the rows the transaction left (none).
    private static func freezeMidTransaction(
        url: String,
        dataDirectory: String
    ) throws -> (StoreError?, StoreError?, StoreError?, Int) {
        let connection = try PostgresConnection(url: url, statementTimeout: 1, reconnectPause: 3600)
        try connection.execute("CREATE TABLE t (n integer)")
        var frozen: FrozenServer?
        defer { frozen?.resume() }
        let inTransaction = storeError {
            try connection.transaction {
                try connection.query("INSERT INTO t VALUES (1)")
                frozen = try FrozenServer(dataDirectory: dataDirectory)
                try connection.query("SELECT count(*) FROM t")
            }
        }
        let reconnect = storeError { try connection.query("SELECT 1") }
        let whileDown = storeError { try connection.query("SELECT 1") }
        frozen?.resume()
        let rows = try PostgresConnection(url: url).query("SELECT count(*) FROM t")[0].int(0)
        return (inTransaction, reconnect, whileDown, rows)
    }

    /// A relay frozen inside a transaction (a stopped process, a paused host) holds what the transaction
    /// locked, an app's claim lock among them: the server ends its session once it is idle there for half the
    /// statement timeout, so another relay waiting for the lock takes it, and the frozen one's next statement
    /// fails and the one after connects again.
    @Test func aSessionIdleInsideATransactionIsEndedByTheServer() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = try await cluster.newDatabaseURL()
        let (other, frozen, after) = try await PostgresStoreTests.onThread {
            try Self.freezeClientInTransaction(url: url)
        }
        #expect(other == nil, "the waiting relay did not get the lock: \(String(describing: other))")
        #expect(frozen != nil)
        #expect(after == 1)
    }

    /// Takes an advisory transaction lock and goes quiet inside the transaction while another connection
    /// waits for the lock; returns the waiter's error (nil when it took the lock), the error of the quiet
    /// one's next statement in its transaction, and its answer to a statement after.
    private static func freezeClientInTransaction(url: String) throws -> (StoreError?, StoreError?, Int) {
        let quiet = try PostgresConnection(url: url, statementTimeout: 1)
        let waiter = try PostgresConnection(url: url, statementTimeout: 20)
        var waited: StoreError?
        let frozen = storeError {
            try quiet.transaction {
                try quiet.query("SELECT pg_advisory_xact_lock(7, 7)")
                waited = storeError { try waiter.query("SELECT pg_advisory_xact_lock(7, 7)") }
                try quiet.query("SELECT 1")
            }
        }
        return (waited, frozen, try quiet.query("SELECT 1")[0].int(0))
    }

    /// `connect_timeout` is added to a URL that sets none, and a URL's own is kept.
    @Test func aConnectTimeoutIsAddedWhenTheURLSetsNone() throws {
        let plain = try PostgresConnectParameters(url: "postgresql://relay@/relay?host=/tmp", connectTimeout: 5)
        #expect(plain.value(of: "connect_timeout") == "5")
        #expect(plain.value(of: "host") == "/tmp")
        let own = try PostgresConnectParameters(url: "postgresql://relay@/relay?connect_timeout=2", connectTimeout: 5)
        #expect(own.value(of: "connect_timeout") == "2")
        let keyValue = try PostgresConnectParameters(url: "dbname=relay user=relay", connectTimeout: 7)
        #expect(keyValue.value(of: "dbname") == "relay")
        #expect(keyValue.value(of: "connect_timeout") == "7")
        #expect { try PostgresConnectParameters(url: "postgresql://relay@/relay?bogus=1", connectTimeout: 5) } throws: {
            ($0 as? StoreError)?.code == .open
        }
    }

    /// The ``StoreError`` `body` throws, nil when it returns (a call on the connection itself).
    private static func storeError(_ body: () throws -> Void) -> StoreError? {
        do {
            try body()
            return nil
        } catch {
            return error as? StoreError
        }
    }
}
