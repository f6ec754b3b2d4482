import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// A store a call finds damaged is marked so by the pool's health (``StorageHealth/damage``), whichever call
/// meets the damage, and the pool starts no call of it from then on: here a real SQLite file whose
/// `notifications` page is overwritten, which a claim reads and a write elsewhere or a read of the due apps
/// does not.
@Suite struct StorageDamageTests {
    typealias F = StoreFixtures

    @Test func aClaimThatMeetsADamagedPageStopsEveryCallForGood() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("relay.sqlite").path
            do {
                let store = try SQLiteStore(path: path, logger: .disabled())
                try await store.register(F.token(1), user: "bob", at: F.time(-10))
                _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            }
            try SQLiteDamage.overwriteRootPage(of: "notifications", in: path)

            let lines = MemoryLogHandler()
            let pool = StorePool(
                members: [try SQLiteStore(path: path, logger: .disabled())],
                logger: Logger(label: "test", handler: lines)
            )
            try await pool.checkWritable()
            #expect(try await pool.appsWithDueDeliveries(now: F.time(0)) == ["app-a"])
            #expect(pool.health.damage == nil)
            for _ in 0..<2 {
                await #expect(throws: StoreError.self) {
                    try await pool.claimDueDeliveries(now: F.time(0), limit: 10, leaseSeconds: 30, owner: F.owner)
                }
            }
            #expect(pool.health.damage?.code == .corrupt)
            // Calls that answered before are not made: a write now would be lost by the restore, a claim
            // whose result could not be recorded would be sent again at its lease's end.
            let calls: [@Sendable () async throws -> Void] = [
                { try await pool.checkWritable() },
                { _ = try await pool.appsWithDueDeliveries(now: F.time(1)) },
            ]
            for call in calls {
                await #expect { try await call() } throws: { ($0 as? StoreError)?.code == .corrupt }
            }
            #expect(pool.health.damage?.code == .corrupt && pool.health.up)
            #expect(lines.entries.map(\.level) == [.error], "\(lines.entries.map(\.message))")
            #expect(lines.entries.first?.message.hasPrefix("storage damaged") == true)
            #expect(StorageHealth.logsOnce(try #require(pool.health.damage)))
        }
    }
}
