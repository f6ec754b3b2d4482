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
    /// next day). A leap second (`:60`) is refused too.
    public static func parse(_ text: String) -> Date? {
        let text = text.uppercased()
        guard
            let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
                ?? (try? Date.ISO8601FormatStyle().parse(text))
        else { return nil }
        // The full-date and partial-time without fraction are the first 19 characters (§5.6); read alone,
        // they must come back as written, which nothing that rolls over does.
        let dateTime = String(text.prefix(19))
        let style = Date.ISO8601FormatStyle().year().month().day().dateTimeSeparator(.standard)
            .time(includingFractionalSeconds: false)
        guard let parsed = try? style.parse(dateTime), style.format(parsed) == dateTime else { return nil }
        return date
    }
}

extension Int64 {
    /// Floor division, so times before 1970 still split into whole seconds and a positive fraction.
    fileprivate func quotient(dividingBy divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor < 0) ? q - 1 : q
    }
}
