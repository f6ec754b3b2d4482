import Foundation

/// Times as every store keeps them: UNIX epoch MILLISECONDS in a 64-bit integer.
package enum EpochMilliseconds {
    /// `date` in UNIX epoch milliseconds, rounded to the nearest, clamped to what the integer holds: a date
    /// out of range (a retry scheduled absurdly far ahead) must never stop the process.
    package static func of(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value > 0 ? .max : .min }
        return Int64(exactly: value) ?? (value > 0 ? .max : .min)
    }

    /// The date `milliseconds` after the UNIX epoch.
    package static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
