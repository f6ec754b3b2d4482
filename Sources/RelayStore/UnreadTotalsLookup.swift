/// The unread totals a claim renders badges from, one rule for both engines: the cached totals in one
/// lookup; a user without a row is recounted into the cache (it gets one when it has a live device) and,
/// still without one, counted.
package enum UnreadTotalsLookup {
    /// Each of `userIds`' total (a user with none is missing), from the engine's three steps.
    package static func totals(
        of userIds: [String],
        cached: ([String]) throws -> [String: Int],
        refresh: ([String]) throws -> Void,
        count: ([String]) throws -> [String: Int]
    ) throws -> [String: Int] {
        let users = Array(Set(userIds)).sorted()
        guard !users.isEmpty else { return [:] }
        var totals = try cached(users)
        let missing = users.filter { totals[$0] == nil }
        guard !missing.isEmpty else { return totals }
        try refresh(missing)
        totals.merge(try cached(missing)) { $1 }
        let uncached = missing.filter { totals[$0] == nil }
        guard !uncached.isEmpty else { return totals }
        return totals.merging(try count(uncached)) { $1 }
    }
}
