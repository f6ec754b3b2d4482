import Foundation
import RelayCore
import Testing

/// A signal watched by ``Signals`` reaches its handler, sent the moment the watch is made (registered before
/// `init` returns) or before a handler is set (kept for it).
@Suite struct SignalsTests {
    @Test func aSignalSentAsSoonAsTheWatchIsMadeReachesTheHandler() async throws {
        let signals = Signals([SIGUSR2])
        #expect(signals.registeredInTime)
        kill(getpid(), SIGUSR2)
        let received = OneShotEvent()
        signals.setHandler { number in if number == SIGUSR2 { received.signal() } }
        #expect(await received.wait(until: .now + .seconds(30)), "SIGUSR2 never reached the handler")
    }
}
