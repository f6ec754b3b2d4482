import Foundation
import RelayCore
import Testing

/// `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
@Suite struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func secondsAndHTTPDatesBecomeDelays() {
        #expect(RetryAfter.delay("120", now: Self.now) == .seconds(120))
        #expect(RetryAfter.delay(" 0 ", now: Self.now) == .zero)
        // 1_800_000_000 is Fri, 15 Jan 2027 08:00:00 GMT.
        #expect(RetryAfter.delay("Fri, 15 Jan 2027 08:10:00 GMT", now: Self.now) == .seconds(600))
        #expect(RetryAfter.delay("Fri, 15 Jan 2027 07:00:00 GMT", now: Self.now) == .zero)
    }

    @Test(arguments: ["", "-5", "soon", "1.5", "99999999999999999999999"])
    func anythingElseIsNone(_ header: String) {
        #expect(RetryAfter.delay(header, now: Self.now) == nil)
    }
}
