import Synchronization
import Testing

@testable import RelayServer

/// The dispatcher's wake-ups: a signal is never lost, whether it comes before or during a wait.
@Suite(.timeLimit(.minutes(1))) struct WakeSignalTests {
    @Test func aSignalBeforeTheWaitIsKeptForIt() async {
        let signal = WakeSignal()
        signal.signal()
        #expect(signal.isPending)
        await signal.wait(timeout: .seconds(3600))
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

    @Test func cancellingTheWaitingTaskEndsTheWait() async {
        let signal = WakeSignal()
        let waiter = Task { await signal.wait(timeout: .seconds(3600)) }
        waiter.cancel()
        await waiter.value
        #expect(!signal.isPending)
    }

    @Test func anEarlierWaitsTimeoutDoesNotEndALaterWait() async throws {
        let signal = WakeSignal()
        signal.signal()
        await signal.wait(timeout: .milliseconds(1))  // ended by the kept signal; sets no timer
        let first = Task { await signal.wait(timeout: .milliseconds(20)) }
        while !signal.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
        signal.signal()
        await first.value  // ended by the signal; its 20 ms timer is still set
        let ended = Mutex(false)
        let second = Task {
            await signal.wait(timeout: .seconds(3600))
            ended.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(200))  // well past the first wait's timer
        #expect(!ended.withLock { $0 })
        signal.signal()
        await second.value
        #expect(ended.withLock { $0 })
    }
}
