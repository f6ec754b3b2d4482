import Foundation
import RelayCore
import Testing

@Suite struct TimestampTests {
    @Test func rfc3339KeepsMilliseconds() {
        let date = Date(timeIntervalSince1970: 1_767_225_600.123)
        #expect(Timestamp.rfc3339(date) == "2026-01-01T00:00:00.123Z")
        #expect(Timestamp.milliseconds(date) == 1_767_225_600_123)
        #expect(Timestamp.parse("2026-01-01T00:00:00.123Z").map(Timestamp.milliseconds) == 1_767_225_600_123)
        #expect(Timestamp.parse("2026-01-01T01:00:00+01:00").map(Timestamp.milliseconds) == 1_767_225_600_000)
        #expect(Timestamp.parse("2026-01-01t00:00:00.123z").map(Timestamp.milliseconds) == 1_767_225_600_123)
        #expect(Timestamp.parse("yesterday") == nil)
        // A day the month does not have is refused, not carried into the next month.
        #expect(Timestamp.parse("2020-02-30T00:00:00Z") == nil)
        #expect(Timestamp.parse("2021-02-29T10:00:00.123+02:00") == nil)
        #expect(Timestamp.parse("2020-02-29T00:00:00Z") != nil)
        #expect(Timestamp.parse("2020-02-29T23:59:59.999-11:30") != nil)
    }

    /// RFC 3339's fraction takes any number of digits; past the nanosecond they change nothing kept.
    @Test func aFractionOfMoreThanNineDigitsIsRead() {
        for text in ["2026-01-01T00:00:00.1234567891Z", "2026-01-01T01:00:00.12345678912345678+01:00"] {
            #expect(Timestamp.parse(text).map(Timestamp.milliseconds) == 1_767_225_600_123, "\(text)")
        }
        #expect(Timestamp.parse("2026-01-01t00:00:00.1234567891z").map(Timestamp.milliseconds) == 1_767_225_600_123)
        #expect(Timestamp.parse("2026-01-01T00:00:00.123456789Z").map(Timestamp.milliseconds) == 1_767_225_600_123)
        #expect(Timestamp.parse("2026-01-01T00:00:00.1234567891") == nil)
        #expect(Timestamp.parse("2026-01-01T00:00:00.1234567891ZZ") == nil)
    }

    /// Text after the time is refused, not left unread.
    @Test(
        arguments: [
            "2026-01-01T00:00:00Zjunk", "2026-01-01T00:00:00.123ZZ", "2026-01-01T00:00:00+01:00 ",
            "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.", "2026-01-01T00:00:00.1234567890123é", "2026-01-01",
        ]
    )
    func textAfterTheTimeIsRefused(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    /// A time of day out of range is refused, not rolled over into the next hour or day (RFC 3339 §5.7).
    @Test(
        arguments: [
            "2026-01-01T25:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T10:99:00Z", "2026-01-01T10:00:61Z",
            "2026-01-01T10:00:60Z", "2026-01-01T10:60:00.500+01:00", "2026-13-01T10:00:00Z",
        ]
    )
    func outOfRangeTimesAreRefused(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }
}
