import Foundation
import RelayTestSupport
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// The schema's advisory lock between relays (shared, beside each instance lock) and a storage copy reading
/// the schema (exclusive): neither runs on the schema while the other holds it, across reconnects.
@Suite struct PostgresSchemaLockTests {
    /// A relay whose session ends while a copy takes the schema's lock runs nothing until it has its locks
    /// back: a session it opens meanwhile fails its set-up, so no statement runs on it, and once the copy is
    /// gone the relay takes both locks again and runs.
    @Test func aRelayReconnectingWhileACopyReadsRunsNothingUntilItHasItsLocksBack() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        try await PostgresStoreTests.onThread {
            let relay = try PostgresConnection(url: url, reconnectPause: 0.1)
            #expect(try relay.takeInstanceLock("relay-1"))
            relay.instanceLocks.append("relay-1")
            let admin = try PostgresConnection(url: url)
            var copy: PostgresConnection? = try PostgresConnection(url: url)
            #expect(throws: StoreError.self) { try copy?.holdSchemaExclusively() }
            #expect(try admin.query("SELECT pg_terminate_backend($1, 5000)", Int(relay.backendPID))[0].bool(0))
            try copy?.holdSchemaExclusively()
            for _ in 0..<3 {
                #expect(throws: StoreError.self) { _ = try relay.query("SELECT 1") }
            }
            #expect(try admin.query(PostgresConnection.instanceHoldersSQL, "relay-1")[0].int(0) == 0)
            copy = nil
            var back = false
            for _ in 0..<100 where !back {
                back = (try? relay.query("SELECT 1")) != nil
                if !back { usleep(100_000) }
            }
            #expect(back)
            #expect(try admin.query(PostgresConnection.instanceHoldersSQL, "relay-1")[0].int(0) == 1)
            // And a copy is refused again.
            #expect(throws: StoreError.self) { try PostgresConnection(url: url).holdSchemaExclusively() }
        }
    }

    /// A copy whose session ends takes the schema's lock back with its next session, so no relay starts on
    /// the schema in the middle of a copy.
    @Test func aCopyTakesTheSchemasLockBackAfterAReconnect() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        try await PostgresStoreTests.onThread {
            let copy = try PostgresConnection(url: url, reconnectPause: 0.1)
            try copy.holdSchemaExclusively()
            let admin = try PostgresConnection(url: url)
            #expect(try admin.query("SELECT pg_terminate_backend($1, 5000)", Int(copy.backendPID))[0].bool(0))
            _ = try copy.query("SELECT 1")
            let relay = try PostgresConnection(url: url)
            let refused = #expect(throws: StoreError.self) { _ = try relay.takeInstanceLock("relay-1") }
            #expect(refused?.message.contains("a storage copy reads this schema") == true)
        }
    }

    /// A relay that does not win its instance lock gives the schema's shared lock back, so a copy is not
    /// refused for a relay that never started.
    @Test func aRelayRefusedItsInstanceLockLeavesTheSchemaFree() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        try await PostgresStoreTests.onThread {
            let holder = try PostgresConnection(url: url)
            #expect(try holder.takeInstanceLock("relay-1"))
            let second = try PostgresConnection(url: url)
            #expect(try second.takeInstanceLock("relay-1") == false)
            let held = "SELECT count(*)::integer FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
            #expect(try second.query(held)[0].int(0) == 0)
        }
    }
}
