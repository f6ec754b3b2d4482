import Foundation

/// Times as every store keeps them: UNIX epoch MILLISECONDS in a 64-bit integer.
package enum EpochMilliseconds {
    /// `date` in UNIX epoch milliseconds, rounded to the nearest.
    package static func of(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date `milliseconds` after the UNIX epoch.
    package static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
