import Foundation
import RelayTestSupport
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// The schema's advisory lock: every relay holds it shared beside its instance lock, and a storage copy
/// from the schema asks before and after it reads that none does (and that its own session lasted).
@Suite struct PostgresSchemaLockTests {
    /// A relay whose session ends takes its hold back with its instance lock, so a copy begun after is
    /// refused; a session whose set-up failed is not used.
    @Test func aRelayTakesItsHoldBackAfterAReconnect() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        try await PostgresStoreTests.onThread {
            let relay = try PostgresConnection(url: url, reconnectPause: 0.1)
            #expect(try relay.takeInstanceLock("relay-1"))
            relay.instanceLocks.append("relay-1")
            let admin = try PostgresConnection(url: url)
            #expect(try admin.schemaIsFree() == false)
            #expect(try admin.query("SELECT pg_terminate_backend($1, 5000)", Int(relay.backendPID))[0].bool(0))
            #expect(try admin.schemaIsFree())
            _ = try relay.query("SELECT 1")
            #expect(try admin.schemaIsFree() == false)
        }
    }

    /// A copy fails at its end when a relay started on the schema while it read, or when its own session
    /// was lost (relays may have written in the gap, and a new session is not read-only).
    @Test func aCopyFailsWhenARelayStartedOrItsSessionWasLost() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let copy = try PostgresStore(url: url, logger: .disabled())
        try await copy.refuseLiveRelays()
        try await copy.finishExport()
        let relay = try PostgresStore(url: url, logger: .disabled())
        try await relay.claimInstance("relay-1")
        let started = await #expect(throws: StoreError.self) { try await copy.finishExport() }
        #expect(started?.message.contains("started on this schema during the copy") == true)
        withExtendedLifetime(relay) {}

        let lost = try PostgresStore(url: try await PostgresCluster.shared().newDatabaseURL(), logger: .disabled())
        try await lost.refuseLiveRelays()
        let admin = try PostgresStore(url: url, logger: .disabled())
        #expect(try await admin.terminateBackend(try await lost.backendPid()))
        let gone = await #expect(throws: StoreError.self) { try await lost.finishExport() }
        #expect(gone?.message.contains("lost during the copy") == true)
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
