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

    /// A burst that stops is counted once its interval has passed, with no later error to carry the count.
    @Test func aBurstEndsWithItsCount() {
        var limiter = ErrorLogLimiter(interval: .seconds(1))
        #expect(limiter.flush(at: .seconds(100)) == nil)
        #expect(limiter.admit(at: .seconds(100)) == 0)
        for tenth in 1...9 { #expect(limiter.admit(at: .milliseconds(100_000 + 100 * tenth)) == nil) }
        #expect(limiter.flush(at: .milliseconds(100_950)) == nil)
        #expect(limiter.flush(at: .seconds(101)) == 9)
        #expect(limiter.flush(at: .seconds(105)) == nil)
        #expect(limiter.admit(at: .milliseconds(101_500)) == nil)
        #expect(limiter.flush(at: .milliseconds(101_600), force: true) == 1)
    }
}
