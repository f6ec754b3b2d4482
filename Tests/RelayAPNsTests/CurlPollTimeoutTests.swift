import RelayCurl
import Testing

/// How long a curl driver waits in `curl_multi_poll` (``CurlMultiDriver/pollTimeout(idle:transfers:startable:untilDeadline:)``).
@Suite struct CurlPollTimeoutTests {
    @Test func whileTransfersRunTheWaitIsShortWhateverTheIdleWait() {
        let wait = CurlMultiDriver.pollTimeout(idle: .seconds(1), transfers: 3, startable: false, untilDeadline: nil)
        #expect(wait == CurlMultiDriver.activePoll)
        #expect(CurlMultiDriver.activePoll < .seconds(1))
    }

    @Test func withNoTransferTheDriverWaitsItsIdleWait() {
        let wait = CurlMultiDriver.pollTimeout(idle: .seconds(1), transfers: 0, startable: false, untilDeadline: nil)
        #expect(wait == .seconds(1))
    }

    @Test func anIdleWaitShorterThanTheActiveOneStays() {
        let wait = CurlMultiDriver.pollTimeout(
            idle: .milliseconds(2),
            transfers: 1,
            startable: false,
            untilDeadline: nil
        )
        #expect(wait == .milliseconds(2))
    }

    @Test func aRequestThatCanStartIsTakenAtOnce() {
        let wait = CurlMultiDriver.pollTimeout(idle: .seconds(1), transfers: 5, startable: true, untilDeadline: nil)
        #expect(wait == .zero)
    }

    @Test func theWaitEndsByTheFirstQueuedDeadline() {
        let soon = CurlMultiDriver.pollTimeout(
            idle: .seconds(1),
            transfers: 0,
            startable: false,
            untilDeadline: .milliseconds(3)
        )
        #expect(soon == .milliseconds(3))
        let passed = CurlMultiDriver.pollTimeout(
            idle: .seconds(1),
            transfers: 0,
            startable: false,
            untilDeadline: .milliseconds(-5)
        )
        #expect(passed == .zero)
    }
}
