import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// The parts of ``StorePool`` that need no database: lending its members under a deadline
/// (``StoreSlots``) and logging storage going away and coming back once each (``StorageHealth``).
@Suite struct StorePoolTests {
    @Test func aCallThatFindsNoFreeMemberByItsDeadlineGivesUp() async throws {
        let slots = StoreSlots(count: 1)
        let held = try #require(await slots.acquire(deadline: nil))
        #expect(await slots.acquire(deadline: .now + .milliseconds(50)) == nil)
        #expect(await slots.acquire(deadline: .now - .seconds(1)) == nil)
        slots.release(held)
        #expect(await slots.acquire(deadline: .now + .seconds(60)) == held)
    }

    /// A released member goes to the caller that has waited longest.
    @Test func aReleasedMemberGoesToTheFirstWaiter() async throws {
        let slots = StoreSlots(count: 1)
        let held = try #require(await slots.acquire(deadline: nil))
        let first = Task { await slots.acquire(deadline: .now + .seconds(60)) }
        while slots.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let second = Task { await slots.acquire(deadline: .now + .seconds(60)) }
        while slots.waiting < 2 { try await Task.sleep(for: .milliseconds(5)) }
        slots.release(held)
        #expect(await first.value == held)
        #expect(slots.waiting == 1)
        slots.release(held)
        #expect(await second.value == held)
    }

    @Test func storageGoingAwayAndComingBackIsLoggedOnceEach() {
        let lines = MemoryLogHandler()
        let clock = ManualTimeSource()
        let health = StorageHealth(logger: Logger(label: "test", handler: lines), time: clock)
        let io = StoreError(code: .io, message: "PostgreSQL did not answer within 10 s")
        health.record(nil)
        health.record(io)
        health.record(StoreError(code: .unavailable, message: "no connection free"))
        health.record(io)
        #expect(!health.up)
        // A refused write says nothing about the storage being there.
        health.record(StoreError(code: .constraint, message: "unique"))
        #expect(!health.up)
        // A full disk: reads answer while every write fails. Storage is back once calls answered for a
        // while with none failing.
        for _ in 0..<20 {
            clock.advance(by: .seconds(1))
            health.record(nil)
            health.record(io)
        }
        #expect(!health.up)
        clock.advance(by: .seconds(4))
        health.record(nil)
        #expect(!health.up)
        clock.advance(by: .seconds(1))
        health.record(nil)
        health.record(nil)
        #expect(health.up)
        #expect(lines.entries.map(\.message) == ["storage unavailable", "storage available again"])
        #expect(lines.entries.first?.level == .error)
    }

    /// A request refused for finding no connection free by its deadline says nothing of the storage: a busy
    /// store refuses so too, and a frozen one is found by the calls holding its connections.
    @Test func noConnectionFreeIsNotStorageAway() {
        let lines = MemoryLogHandler()
        let health = StorageHealth(logger: Logger(label: "test", handler: lines), time: ManualTimeSource())
        let noneFree = StoreError(code: .unavailable, message: "no connection free")
        health.record(noneFree)
        #expect(health.up && lines.entries.isEmpty)
        #expect(!StorageHealth.isOutage(noneFree) && !StorageHealth.logsOnce(noneFree))
        #expect(noneFree.isTransient)
    }

    /// A SQLite file another process keeps locked past the busy timeout takes no write: storage is away (one
    /// line), and the background loops' failed calls go to debug.
    @Test func aLockOutlastingTheBusyTimeoutIsStorageAway() {
        let lines = MemoryLogHandler()
        let health = StorageHealth(logger: Logger(label: "test", handler: lines), time: ManualTimeSource())
        let busy = StoreError(code: .busy, message: "database is locked")
        health.record(busy)
        health.record(busy)
        #expect(!health.up)
        #expect(lines.entries.map(\.message) == ["storage unavailable"])
        #expect(StorageHealth.isOutage(busy))
    }
}
