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
}
