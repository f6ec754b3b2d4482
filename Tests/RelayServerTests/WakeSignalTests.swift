import Synchronization
import Testing

@testable import RelayOutbox

/// The dispatcher's wake-ups: a signal is never lost, whether it comes before or during a wait.
@Suite(.timeLimit(.minutes(1))) struct WakeSignalTests {
    @Test func aSignalBeforeTheWaitIsKeptForIt() async {
        let signal = WakeSignal()
        signal.signal()
        #expect(signal.isPending)
        await signal.wait(timeout: .seconds(3600))
        #expect(!signal.isPending)
    }

    @Test func takingAKeptSignalUsesItUp() async {
        let signal = WakeSignal()
        #expect(!signal.take())
        signal.signal()
        #expect(signal.take())
        #expect(!signal.take())
        #expect(!signal.isPending)
    }

    @Test func aSignalDuringTheWaitEndsIt() async {
        let signal = WakeSignal()
        let waiter = Task { await signal.wait(timeout: .seconds(3600)) }
        // Until the waiter is parked, the signal is kept for it instead; either way the wait ends.
        signal.signal()
        await waiter.value
        #expect(!signal.isPending)
    }

    @Test func aWaitWithoutASignalEndsAtItsTimeout() async {
        let signal = WakeSignal()
        await signal.wait(timeout: .milliseconds(1))
        #expect(!signal.isPending)
    }

    @Test func aShortWaitAfterALongOneEndsAtItsOwnTimeout() async throws {
        let signal = WakeSignal()
        let first = Task { await signal.wait(timeout: .seconds(3600)) }
        // Once it is parked, end the long wait with a signal: its timer, an hour away, stays set.
        while !signal.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
        signal.signal()
        await first.value
        // Ends within the suite's time limit only if it sets a timer of its own.
        await signal.wait(timeout: .milliseconds(1))
        #expect(!signal.isPending)
    }

    @Test func cancellingTheWaitingTaskEndsTheWait() async {
        let signal = WakeSignal()
        let waiter = Task { await signal.wait(timeout: .seconds(3600)) }
        waiter.cancel()
        await waiter.value
        #expect(!signal.isPending)
    }

    @Test func anEarlierWaitsTimeoutDoesNotEndALaterWait() async throws {
        let signal = WakeSignal()
        let firstEnded = Mutex(false)
        let first = Task {
            await signal.wait(timeout: .milliseconds(300))
            firstEnded.withLock { $0 = true }
        }
        // Once it is parked, end the first wait with a signal: its 300 ms timer stays set. (On a machine too
        // slow to see it parked before it timed out, the signal is kept and taken here instead.)
        while !signal.hasWaiter && !firstEnded.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        signal.signal()
        await first.value
        if signal.isPending { await signal.wait(timeout: .seconds(3600)) }
        let ended = Mutex(false)
        let second = Task {
            await signal.wait(timeout: .seconds(3600))
            ended.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(600))  // past the first wait's timer
        #expect(!ended.withLock { $0 })
        signal.signal()
        await second.value
        #expect(ended.withLock { $0 })
    }
}
