import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// ``StoreCopy`` between the engines, where one keeps what the other cannot.
@Suite struct StoreCopyTests {
    typealias F = StoreFixtures

    /// PostgreSQL keeps each delivery's notification; SQLite finds it by the notification's run of delivery
    /// ids, so deliveries of two notifications whose ids interleave are refused, not filed under the wrong one.
    @Test func interleavedDeliveryIdsAreRefusedBySQLite() async throws {
        let source = try #require(try await StoreKind.postgres.makeStore() as? PostgresStore)
        try await source.register(F.token(1), user: "bob")
        try await source.register(F.token(2), user: "carol")
        let first = try await source.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let second = try await source.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        // Deliveries 1 and 3 of the first, 2 and 4 of the second, with their ranges (as two concurrent
        // fan-outs can take them).
        try await source.execute(
            """
            UPDATE deliveries SET notification_id = CASE id WHEN 2 THEN '\(second.notificationId.lowercasedString)'
                ELSE '\(first.notificationId.lowercasedString)' END::uuid WHERE id IN (2, 3);
            UPDATE notifications SET first_delivery_id = CASE id
                WHEN '\(first.notificationId.lowercasedString)' THEN 1 ELSE 2 END,
                last_delivery_id = CASE id WHEN '\(first.notificationId.lowercasedString)' THEN 3 ELSE 4 END
            """
        )
        let destination = try SQLiteStore.temporary()
        await #expect {
            try await StoreCopy(batchSize: 10).run(from: source, to: destination)
        } throws: { error in
            (error as? StoreError)?.code == .invalidData
                && "\(error)".contains("outside their notification's run of delivery ids")
        }
        #expect(try await destination.pendingDeliveryCount() == 0)
        // What the copy wrote before it stopped is no store to serve.
        await #expect { try await destination.claimInstance("relay-a") } throws: { Self.isUnfinishedCopy($0) }
    }

    /// A store a copy writes into is served by no relay until the copy ends; a copy run again over the mark
    /// of one that stopped before its first batch finishes, and its store is served.
    @Test(arguments: StoreKind.allCases) func noRelayServesAStoreWhileACopyWritesIt(kind: StoreKind) async throws {
        let source = try SQLiteStore.temporary()
        try await source.register(F.token(1), user: "bob")
        // Kept to the end: a SQLite relay's lock file goes beside the store's.
        let database = try await kind.makeDatabase()
        defer { withExtendedLifetime(database) {} }
        let destination = try #require(try database.open() as? any StoreImport & Store)
        try await destination.beginImport()
        await #expect { try await destination.claimInstance("relay-a") } throws: { Self.isUnfinishedCopy($0) }
        // The way back to a new store is the engine's own.
        let fresh = kind == .sqlite ? "delete this SQLite file" : "drop and create this schema"
        await #expect { try await destination.claimInstance("relay-a") } throws: { "\($0)".contains(fresh) }
        _ = try await StoreCopy().run(from: source, to: destination)
        try await destination.claimInstance("relay-a")
        #expect(try await destination.device(appId: "app-a", token: F.token(1)) != nil)
    }

    /// A store a copy into has not finished is no source either: a copy of it would be served, though it
    /// holds only part of what it was copied from. Once its copy ends, it is copied as any store.
    @Test(arguments: StoreKind.allCases) func aStoreACopyHasNotFinishedIsNoSource(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        defer { withExtendedLifetime(database) {} }
        let marked = try #require(try database.open() as? any StoreImport & StoreExport & Store)
        try await marked.beginImport()
        #expect(Self.isUnfinishedCopy(try #require(try await marked.unfinishedCopy())))
        let destination = try SQLiteStore.temporary()
        await #expect { try await StoreCopy().run(from: marked, to: destination) } throws: {
            Self.isUnfinishedCopy($0) && "\($0)".contains("the source: ")
        }
        #expect(try await destination.importedRowCount() == 0)
        try await destination.claimInstance("relay-a")
        try await marked.finishImport()
        #expect(try await marked.unfinishedCopy() == nil)
        _ = try await StoreCopy().run(from: marked, to: try SQLiteStore.temporary())
    }

    /// A copy into a PostgreSQL schema a live relay serves is refused before anything is written: the relay
    /// would send the rows as they arrive.
    @Test func aDestinationALiveRelayServesIsRefused() async throws {
        let source = try SQLiteStore.temporary()
        try await source.register(F.token(1), user: "bob")
        let database = try await StoreKind.postgres.makeDatabase()
        let relay = try database.open()
        try await relay.claimInstance("relay-a")
        let destination = try #require(try database.open() as? any StoreImport & Store)
        await #expect { try await StoreCopy().run(from: source, to: destination) } throws: {
            ($0 as? StoreError)?.code == .instanceInUse && "\($0)".contains("a live relay serves this schema")
        }
        #expect(try await destination.device(appId: "app-a", token: F.token(1)) == nil)
        #expect(try await destination.importedRowCount() == 0)
    }

    static func isUnfinishedCopy(_ error: any Error) -> Bool {
        (error as? StoreError)?.code == .copyUnfinished && "\(error)".contains("has not finished")
    }

    /// A copy into a store that holds rows is refused before anything is read or written.
    @Test(arguments: StoreKind.allCases) func aDestinationWithRowsIsRefused(kind: StoreKind) async throws {
        let source = try SQLiteStore.temporary()
        try await source.register(F.token(1), user: "bob")
        let destination = try #require(try await kind.makeStore() as? any StoreImport & Store)
        try await destination.addMember(appId: "app-a", roomId: "room-9", userId: "dan", at: F.t0)
        await #expect(throws: StoreCopy.Refusal.self) {
            try await StoreCopy().run(from: source, to: destination)
        }
        #expect(try await destination.device(appId: "app-a", token: F.token(1)) == nil)
    }
}
