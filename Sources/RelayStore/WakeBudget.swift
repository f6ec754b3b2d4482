import Foundation

/// How wake pushes are taken from devices' hourly budgets (``Store/takeWakePushes(appId:tokens:perHour:at:)``):
/// each device of an app counts the wake pushes it was given in the current UTC clock hour, one row per
/// device that starts again at zero in a new hour; a device is given wake pushes while its count is below
/// the budget, in the order asked.
package enum WakeBudget {
    /// Rows of past hours deleted by each call: more than one, so the table shrinks back to the devices
    /// woken this hour even when calls slow down.
    package static let expiredRowsPerCall = 100

    /// The UTC clock hour `now` falls in (UNIX epoch hours), the key of the counts.
    package static func hour(_ now: Date) -> Int64 { EpochMilliseconds.of(now) / 3_600_000 }

    /// How many wake pushes each device of `tokens` asks for (a token named twice asks for two).
    package static func asked(_ tokens: [String]) -> [String: Int] {
        tokens.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// Each asked device's count once given what its budget allows: `used` (its count this hour, absent is
    /// 0) plus what it asked, at most `budget`.
    package static func counts(asked: [String: Int], used: [String: Int], budget: Int) -> [String: Int] {
        asked.reduce(into: [:]) { counts, entry in
            let before = used[entry.key] ?? 0
            counts[entry.key] = max(before, min(budget, before + entry.value))
        }
    }

    /// Which of `tokens` (in the order asked) are given a wake push: a device's first ones, as many as its
    /// count grew from `used` to `counts`.
    package static func given(_ tokens: [String], used: [String: Int], counts: [String: Int]) -> [Bool] {
        var left = counts.reduce(into: [String: Int]()) { $0[$1.key] = $1.value - (used[$1.key] ?? 0) }
        return tokens.map { token in
            guard let remaining = left[token], remaining > 0 else { return false }
            left[token] = remaining - 1
            return true
        }
    }

    /// `counts` as a JSON object's text, token to count: the form in which a statement of either engine takes
    /// them (SQLite `json_each`, PostgreSQL `jsonb_each_text`).
    package static func jsonObject(_ counts: [String: Int]) throws -> String {
        String(decoding: try JSONEncoder().encode(counts), as: UTF8.self)
    }
}
