import Testing

@testable import RelayDittoKafka

/// librdkafka repeats an error while a broker is down: one line per interval, counting what it left out.
@Suite struct ErrorLogLimiterTests {
    @Test func oneLinePerIntervalWithTheSuppressedCount() {
        var limiter = ErrorLogLimiter()
        #expect(limiter.admit(at: .seconds(100)) == 0)
        #expect(limiter.admit(at: .seconds(101)) == nil)
        #expect(limiter.admit(at: .seconds(109)) == nil)
        #expect(limiter.admit(at: .seconds(110)) == 2)
        #expect(limiter.admit(at: .seconds(115)) == nil)
        #expect(limiter.admit(at: .seconds(121)) == 1)
    }
}
