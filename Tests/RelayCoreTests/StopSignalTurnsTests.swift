import RelayCore
import Testing

/// ``StopSignalTurns``: the first stop signal begins the shutdown, the same one delivered again right after
/// is let pass, and a later one, or one during a shutdown begun without a signal, stops at once.
@Suite struct StopSignalTurnsTests {
    @Test func aSignalRepeatedAtOnceIsTheSameSignal() {
        let t0 = ContinuousClock.now
        var turns = StopSignalTurns()
        #expect(turns.verdict(at: t0, shuttingDown: false) == .begin)
        #expect(turns.verdict(at: t0 + .milliseconds(1), shuttingDown: true) == .repeated)
        #expect(turns.verdict(at: t0 + .milliseconds(999), shuttingDown: true) == .repeated)
        #expect(turns.verdict(at: t0 + StopSignalTurns.repeatWindow, shuttingDown: true) == .escalate)
        #expect(turns.verdict(at: t0 + .seconds(30), shuttingDown: true) == .escalate)
    }

    @Test func aSignalDuringAShutdownBegunWithoutOneStopsAtOnce() {
        var turns = StopSignalTurns()
        #expect(turns.verdict(at: .now, shuttingDown: true) == .escalate)
    }
}
