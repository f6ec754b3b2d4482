import RelayAuth
import RelayCore
import Testing

/// The webhook's call slots shared among client ranges, on a manual clock.
@Suite struct FairCallGateTests {
    static func gate(
        slots: Int = 2,
        waitersPerKey: Int = 2,
        maxWaiters: Int = 100,
        time: ManualTimeSource = ManualTimeSource()
    ) -> FairCallGate<String> {
        FairCallGate(
            slots: slots,
            waitersPerKey: waitersPerKey,
            maxWaiters: maxWaiters,
            maxWait: .seconds(5),
            time: time
        )
    }

    /// Starts a caller of `key` and returns once it waits (or had its answer at once).
    static func waiting(_ gate: FairCallGate<String>, _ key: String) async throws -> Task<Bool, Never> {
        let before = gate.waiters
        let task = Task { await gate.acquire(key) }
        for _ in 0..<100_000 where gate.waiters == before { await Task.yield() }
        try #require(gate.waiters == before + 1, "the caller of \(key) does not wait")
        return task
    }

    @Test func freeSlotsAreTakenAtOnceAndNoRoomToWaitRefuses() async {
        let gate = Self.gate(slots: 2, waitersPerKey: 0)
        #expect(await gate.acquire("a"))
        #expect(await gate.acquire("a"))
        #expect(await gate.acquire("b") == false)
        gate.release("a")
        #expect(await gate.acquire("b"))
        #expect(gate.busy == 2)
    }

    @Test func aFreedSlotGoesToTheWaitingRangeHoldingFewest() async throws {
        let gate = Self.gate(slots: 2)
        #expect(await gate.acquire("flood"))
        #expect(await gate.acquire("flood"))
        // The flooding range waited first, but holds both slots: the new range is served first.
        let flood = try await Self.waiting(gate, "flood")
        let fresh = try await Self.waiting(gate, "fresh")
        gate.release("flood")
        #expect(await fresh.value)
        #expect(gate.waiters == 1)
        gate.release("flood")
        #expect(await flood.value)
        #expect(gate.busy == 2 && gate.waiters == 0)
        gate.release("fresh")
        gate.release("flood")
        #expect(gate.busy == 0)
    }

    @Test func rangesHoldingAsManyAreServedInTheOrderTheyWaited() async throws {
        let gate = Self.gate(slots: 1)
        #expect(await gate.acquire("x"))
        let first = try await Self.waiting(gate, "a")
        let second = try await Self.waiting(gate, "b")
        let firstAgain = try await Self.waiting(gate, "a")
        gate.release("x")
        #expect(await first.value)
        // "a" now holds the slot, so "b" (holding none) goes before a's second caller.
        gate.release("a")
        #expect(await second.value)
        gate.release("b")
        #expect(await firstAgain.value)
        gate.release("a")
        #expect(gate.busy == 0 && gate.waiters == 0)
    }

    @Test func aRangeMayHaveOnlySoManyWaiting() async throws {
        let gate = Self.gate(slots: 1, waitersPerKey: 2, maxWaiters: 3)
        #expect(await gate.acquire("x"))
        let waiting = [try await Self.waiting(gate, "a"), try await Self.waiting(gate, "a")]
        #expect(await gate.acquire("a") == false)
        let other = try await Self.waiting(gate, "b")
        // Three wait in all: no room for a fourth range either.
        #expect(await gate.acquire("c") == false)
        for key in ["x", "a", "b"] { gate.release(key) }
        #expect(await waiting[0].value)
        #expect(await other.value)
        #expect(await waiting[1].value)
        gate.release("a")
        #expect(gate.busy == 0)
    }

    @Test func aWaiterGivesUpAfterTheLongestWait() async throws {
        let time = ManualTimeSource()
        let gate = Self.gate(slots: 1, time: time)
        #expect(await gate.acquire("x"))
        let waiter = try await Self.waiting(gate, "a")
        time.advance(by: .milliseconds(4999))
        gate.expireWaiters()
        #expect(gate.waiters == 1)
        time.advance(by: .milliseconds(1))
        gate.expireWaiters()
        #expect(await waiter.value == false)
        // Its slot was never taken: the next release frees one.
        gate.release("x")
        #expect(gate.busy == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let gate = Self.gate(slots: 1)
        #expect(await gate.acquire("x"))
        let waiter = try await Self.waiting(gate, "a")
        waiter.cancel()
        #expect(await waiter.value == false)
        #expect(gate.waiters == 0)
        gate.release("x")
        #expect(gate.busy == 0)
    }
}
