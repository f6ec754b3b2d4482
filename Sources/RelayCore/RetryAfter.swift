import Foundation

/// The `Retry-After` header of a push service's answer (RFC 9110 §10.2.3): how long to wait before trying
/// again, given as delay-seconds or as an HTTP-date.
public enum RetryAfter {
    /// The header's value as a delay: whole seconds, or an HTTP-date (IMF-fixdate) minus `now`, never
    /// negative; nil for anything else.
    public static func delay(_ header: String, now: Date) -> Duration? {
        let text = header.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .seconds(max(0, Int64(date.timeIntervalSince(now).rounded(.up))))
    }
}
