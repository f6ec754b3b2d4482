import Foundation

/// How every time the relay shows is written: RFC 3339 in UTC with milliseconds, `2026-01-01T00:00:00.123Z`.
public enum Timestamp {
    /// Milliseconds since 1970, rounded (APNs' 410 `timestamp` unit).
    public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// RFC 3339 (§5.6) text with exactly three fraction digits, from the date rounded to the millisecond.
    public static func rfc3339(_ date: Date) -> String {
        let total = milliseconds(date)
        let seconds = total.quotient(dividingBy: 1000), fraction = total - seconds * 1000
        let whole = Date(timeIntervalSince1970: TimeInterval(seconds))
        let text = whole.formatted(
            .iso8601.year().month().day().dateTimeSeparator(.standard).time(includingFractionalSeconds: false)
        )
        return text + "." + String(String(fraction + 1000).dropFirst()) + "Z"
    }

    /// Parses RFC 3339 text (with or without fraction, `Z` or an offset, `T` and `Z` in either case as §5.6
    /// allows); nil when it is not RFC 3339, or names a day the month does not have or a time of day out of
    /// range (§5.7: Foundation's parser would read `2020-02-30` as March 1st and `T25:00:00` as 01:00 the
    /// next day). A leap second (`:60`) is refused too, and anything after the time. A fraction may have any
    /// number of digits (§5.6's `time-secfrac`); those past the ninth, which Foundation's parser refuses, are
    /// left out: they change nothing the relay keeps (milliseconds).
    public static func parse(_ text: String) -> Date? {
        let text = withNineFractionDigitsAtMost(text.uppercased())
        // A whole match: the style's `parse` reads a time from the start and leaves what follows unread. The
        // style without a fraction reads times that have none (before Swift 6.2 the other required one).
        guard
            let date = text.wholeMatch(of: Date.ISO8601FormatStyle(includingFractionalSeconds: true))?.output
                ?? text.wholeMatch(of: Date.ISO8601FormatStyle())?.output
        else { return nil }
        // The full-date and partial-time without fraction are the first 19 characters (§5.6); read alone,
        // they must come back as written, which nothing that rolls over does.
        let dateTime = String(text.prefix(19))
        let style = Date.ISO8601FormatStyle().year().month().day().dateTimeSeparator(.standard)
            .time(includingFractionalSeconds: false)
        guard let parsed = try? style.parse(dateTime), style.format(parsed) == dateTime else { return nil }
        return date
    }

    /// `text` with the digits of a fraction after its ninth left out (the fraction starts after the 19
    /// characters of the full-date and partial-time); anything else as it is.
    private static func withNineFractionDigitsAtMost(_ text: String) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.count > 29, utf8[19] == UInt8(ascii: ".") else { return text }
        let digits = utf8[20...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
        guard digits > 9 else { return text }
        return String(decoding: utf8[..<29] + utf8[(20 + digits)...], as: UTF8.self)
    }
}

extension Int64 {
    /// Floor division, so times before 1970 still split into whole seconds and a positive fraction.
    fileprivate func quotient(dividingBy divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor < 0) ? q - 1 : q
    }
}
